"""The report's rulers: every ruler side by side, what they disagree on, the page audit (section 4).

:class:`RulerSections` holds the methods of :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` that
compare the rulers (:mod:`rag_metrics.experiment.rulers`) and audit the logged pages
(:mod:`rag_metrics.judging.page_audit`).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.experiment import history as _history
from rag_metrics.experiment import rulers as _rulers

__all__ = ["RulerSections"]


class RulerSections:
    """The ruler sections of an :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` (module docstring);
    its fields (``subject``, ``baseline``, ``results``, ``measure``, ``measures``, ``coverage``, ``_cache``) are read
    here."""

    def ruler_table(self) -> pd.DataFrame:
        """Every headline measure (hit@k at every k, MRR, Recall@k) of the subject under every ruler that applies,
        the overlap judge with boilerplate kept among them (:func:`rag_metrics.experiment.rulers.ruler_table`)."""
        if "ruler_table" not in self._cache:
            self._cache["ruler_table"] = self.subject.ruler_table()
        return self._cache["ruler_table"]

    def ruler_comparison(self) -> pd.DataFrame:
        """The baseline (when its log is among this report's inputs) and the subject under every ruler, in long form:
        ``ruler``, ``measure``, ``run``, ``value`` -- what the ruler picture draws (the same numbers as each run's
        :meth:`ExperimentResult.ruler_table`)."""
        parts = []
        for r in (self.baseline, self.subject):
            if r is None:
                continue
            table = self.ruler_table() if r is self.subject else r.ruler_table()
            cols = [m for m in self.measures if m in table.columns]
            long = table[cols].astype(float).rename_axis(index="ruler", columns="measure").stack().rename("value")
            parts.append(long.reset_index().assign(run=r.name)[["ruler", "measure", "run", "value"]])
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["ruler", "measure", "run", "value"])

    def ruler_spread(self, measure: str | None = None) -> dict:
        """How far the page-level rulers apart on ``measure`` (default the primary): ``low``/``high`` (ruler
        names), ``low_value``/``high_value``, ``spread``, ``rulers`` (how many), and ``width`` -- the width of the
        subject's 95% interval on that measure, the yardstick the spread is read against."""
        measure = measure or self.measure
        table = self.ruler_table()
        page_level = table.loc[[r for r in table.index if not r.endswith(" level (gold documents)")
                                and not r.startswith("chunk level")], measure].astype(float)
        iv = _history.interval(self.subject_record, measure, n_resamples=self.n_resamples)
        return {"measure": measure, "rulers": int(len(page_level)), "low": page_level.idxmin(),
                "high": page_level.idxmax(), "low_value": float(page_level.min()), "high_value": float(page_level.max()),
                "spread": float(page_level.max() - page_level.min()), "width": float(iv["high"] - iv["low"])}

    def ruler_changes(self) -> pd.DataFrame | None:
        """The change from the baseline to the subject under every ruler both have, one row per ruler, one column
        per headline measure (:func:`rag_metrics.experiment.rulers.ruler_changes`); None when there is no baseline
        or its log is not among this report's inputs (the rulers need its items)."""
        if self.baseline is None:
            return None
        if "ruler_changes" not in self._cache:
            both = None if self.coverage is None else self.coverage["both"]  # the verdict's questions
            long = _rulers.ruler_changes(self.baseline, self.subject, questions=both)
            self._cache["ruler_changes"] = long["change"].astype(float).unstack("measure").reindex(
                columns=[m for m in self.measures if m in set(long.index.get_level_values("measure"))]).reindex(
                index=list(dict.fromkeys(long.index.get_level_values("ruler"))))
        return self._cache["ruler_changes"]

    def ruler_pairs(self) -> list:
        """The pairs of rulers compared item by item: the subject's headline ruler against every other ruler that
        applies -- the page-level ones first (the overlap judge with boilerplate kept included), the document judge
        last."""
        from rag_metrics.experiment.rulers import RAW_OVERLAP

        names = [n for n in self.subject.judges if n != "document"]
        names += [RAW_OVERLAP] if self.subject.raw_overlap() is not None else []
        names += ["document"]  # it credits every item of a gold document: last, its many disagreements expected
        return [(self.subject.primary, other) for other in names if other != self.subject.primary]

    def disagreement_counts(self) -> pd.DataFrame:
        """Per pair of :meth:`ruler_pairs`, counted over every top-k item (largest k) of the subject from the two
        rulers' judged rows: items only the first ruler credits, items only the second credits. Against the overlap
        judge with furniture kept, the items only it credits are credited through page furniture alone (their only
        shared text with the gold page touches furniture): false hits of a ruler that keeps it."""
        if "disagreement_counts" not in self._cache:
            k = max(self.subject.ks)
            judged = dict(self.subject.judged)
            if self.subject.raw_overlap() is not None:
                judged[_rulers.RAW_OVERLAP] = self.subject.raw_overlap()[2]
            key = ["question_id", "rank"]
            rows = []
            for a, b in self.ruler_pairs():
                ja, jb = judged[a], judged[b]
                both = ja.loc[ja["rank"] <= k, key + ["hit"]].merge(jb.loc[jb["rank"] <= k, key + ["hit"]], on=key,
                                                                    suffixes=("_a", "_b"))
                rows.append({"rulers": f"{a} vs {b}",
                             "credited by the first only": int((both["hit_a"] & ~both["hit_b"]).sum()),
                             "credited by the second only": int((~both["hit_a"] & both["hit_b"]).sum())})
            self._cache["disagreement_counts"] = pd.DataFrame(
                rows, columns=["rulers", "credited by the first only", "credited by the second only"]).set_index(
                "rulers")
        return self._cache["disagreement_counts"]

    def furniture_hits(self) -> int | None:
        """Top-k items (largest k) that only the overlap judge with furniture kept credits, against the headline
        overlap judge: credited through page furniture alone. None when the two are not compared (the overlap
        judge is not the headline, or keeps furniture itself)."""
        label = f"overlap vs {_rulers.RAW_OVERLAP}"
        counts = self.disagreement_counts()
        return int(counts.at[label, "credited by the second only"]) if label in counts.index else None

    def ruler_disagreements(self, limit: int | None = None) -> pd.DataFrame:
        """The top-k items (largest k) of the subject that one ruler credits and another does not, for each pair of
        :meth:`ruler_pairs` in turn, with the text each item shares with a gold page and whether that text is all
        page furniture (:func:`rag_metrics.experiment.rulers.ruler_disagreements`). False hits (credited by a ruler
        that should not have) and misses (not credited by one that should) both appear: ``credited_by`` says which.
        ``limit``: at most that many items per pair (finding the shared text costs a search per item; the counts
        of every item are :meth:`disagreement_counts`)."""
        key = ("disagreements", limit)
        if key not in self._cache:
            parts = [_rulers.ruler_disagreements(self.subject, a, b, limit=limit) for a, b in self.ruler_pairs()]
            parts = [p for p in parts if len(p)]
            columns = ["question_id", "rank", "doc_id", "pages", "credited_by", "not_credited_by", "shared_text",
                       "only_boilerplate"]
            self._cache[key] = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
        return self._cache[key]

    def page_audits(self) -> pd.DataFrame:
        """The page-metadata audit of every log of this report, one row per log (:meth:`ExperimentResult.page_audit`:
        items whose logged page equals the page their text lies on, is off by +1, by -1, or elsewhere, with the
        shares of the located items and the warning naming the fix); empty without the documents."""
        tables = [a.table() for a in (r.page_audit() for r in self.results) if a is not None and a.located]
        return pd.concat(tables) if tables else pd.DataFrame()

    def page_warnings(self) -> list:
        """The audits' warnings (a constant page offset, with ``--page-base`` named), one per log that has one."""
        return [a.warning for a in (r.page_audit() for r in self.results) if a is not None and a.warning]

    def placements(self) -> pd.DataFrame:
        """How each log's items got their document and pages (``logged``, or placed by finding their text on the
        pages), one row per log and way, with the item count (:meth:`ExperimentResult.placements`)."""
        parts = []
        for r in self.results:
            p = r.placements()
            if len(p):
                parts.append(p.reset_index().assign(run=r.name))
        if not parts:
            return pd.DataFrame()
        table = pd.concat(parts, ignore_index=True)
        return table[["run"] + [c for c in table.columns if c != "run"]].set_index("run")

    def placed_by_text(self) -> dict:
        """Per log, how many items were placed by their text (not by logged metadata); logs with none left out."""
        out = {}
        for r in self.results:
            if "placed_by" in r.run.columns:
                n = int((r.run["placed_by"] != "logged").sum())
                if n:
                    out[r.name] = n
        return out

    def boilerplate(self) -> pd.DataFrame:
        """The lines the overlap judge leaves out as page furniture, per document (:meth:`ExperimentResult.boilerplate`:
        the repeated text with digits as ``#``, on how many of the document's pages, an example)."""
        if "boilerplate" not in self._cache:
            self._cache["boilerplate"] = self.subject.boilerplate()
        return self._cache["boilerplate"]

    def unfindable(self) -> pd.DataFrame:
        """Gold pages without text, per question (:meth:`ExperimentResult.unfindable_gold`): misses under every text
        judge whatever the retriever does. Columns question_id, question, gold pages without text."""
        table = self.subject.unfindable_gold()
        if not len(table):
            return pd.DataFrame(columns=["question_id", "question", "pages without text"])
        pages = {q: ", ".join(f"{d} p.{int(p)}" for d, p in zip(g["doc_id"], g["page"]))
                 for q, g in table.groupby("question_id", sort=False)}
        out = pd.DataFrame({"question_id": list(pages), "pages without text": list(pages.values())})
        out.insert(1, "question", out["question_id"].map(self.subject.golden.questions["question"]))
        return out
