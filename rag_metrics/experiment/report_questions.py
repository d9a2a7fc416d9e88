"""The report's questions: which moved, which get a drill-down, and every question × run (section 3).

:class:`QuestionSections` holds the methods of :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` that
list questions: :meth:`~QuestionSections.moved` (the questions whose primary measure changed), the drill-down plan and
its groups (one drill-down per distinct list of items), and the question × run table -- whole as a DataFrame and a CSV
file (:meth:`~QuestionSections.write_question_table`), capped to :data:`QUESTION_ROWS` rows on the page.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import check_int
from rag_metrics.core.html import HtmlView
from rag_metrics.experiment import history as _history
from rag_metrics.experiment.confidence import credit_note
from rag_metrics.experiment.verdict import moved_questions

__all__ = ["QuestionSections", "DRILLDOWNS", "QUESTION_ROWS", "QUESTION_CSV", "run_labels", "read_question_table"]

DRILLDOWNS = 20
"""Default number of questions shown item by item (the moved ones first, then the remaining misses)."""
QUESTION_ROWS = 100
"""Rows of the question × run table on the page (the changed questions first); the whole table is a CSV file beside
it (:data:`QUESTION_CSV`)."""
QUESTION_CSV = "questions.csv"
"""The file name of the whole question × run table, written beside the report's page."""


def read_question_table(path) -> pd.DataFrame:
    """A question × run table written by :meth:`QuestionSections.write_question_table`, read back as it was: IDs,
    texts and types as text (``"007"`` stays ``"007"``, an empty text stays empty), the ranks as ``Int64``."""
    head = pd.read_csv(path, nrows=0, encoding="utf-8").columns
    text = {c: object for c in (*head[:3], head[-1])}
    table = pd.read_csv(path, dtype={**text, **{c: "Int64" for c in head[3:-1]}}, keep_default_na=False,
                        na_values={c: [""] for c in head[3:-1]}, encoding="utf-8")
    return table


class QuestionSections:
    """The question lists of an :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` (module docstring);
    its fields (``subject``, ``baseline``, ``baseline_record``, ``measure``, ``coverage``, ``_cache``) are read here."""

    def moved(self) -> pd.DataFrame:
        """The questions whose primary-measure value changed from the baseline to the subject (regressions first;
        :func:`~rag_metrics.experiment.verdict.moved_questions`), with their question text; empty without a
        baseline."""
        if self.baseline_record is None:
            return pd.DataFrame(columns=["question_id", "question", "before", "after", "change"])
        if "moved" not in self._cache:
            before = _history.per_question(self.baseline_record, self.measure)
            after = self.subject.evaluation.per_question[self.measure]
            if self.coverage is not None:  # a question one run did not log has not moved: it is listed apart
                both = self.coverage["both"]
                before, after = before[before.index.isin(both)], after[after.index.isin(both)]
            table = moved_questions(before, after)
            table.insert(1, "question", table["question_id"].map(self.subject.golden.questions["question"]))
            notes = self._credit_notes(table)
            table["credit"] = pd.Series([notes.get(q, "") for q in table["question_id"]], index=table.index,
                                        dtype=object)
            self._cache["moved"] = table
        return self._cache["moved"]

    def _credit_notes(self, moved: pd.DataFrame) -> dict:
        """``{question_id: note}`` for the moved questions whose credit rests on the page window alone or on one
        ruler (:func:`credit_note`): the subject's credit for a question that rose, the baseline's for one that fell
        (when the baseline's log is among the inputs)."""
        notes = {}
        for q, change in zip(moved["question_id"], moved["change"]):
            result = self.subject if change in ("newly hit", "improved") else self.baseline
            note = credit_note(result, q, self.measure) if result is not None else ""
            if note:
                notes[q] = note
        return notes


    def drilldown_groups(self, cap: int = DRILLDOWNS) -> list:
        """The drill-downs to show, one per distinct pattern: the questions of :meth:`drilldown_plan` in its order,
        those with the same ``why`` whose subject returned the same list of items grouped under the first of them.
        Each group: ``question_id`` (the one shown), ``why``, ``others`` (the questions it stands for); at most
        ``cap`` groups, of which the gains (newly hit, improved) take at most half: a loss or a miss is what a reader
        opens a drill-down for, and the question table lists every gain."""
        from rag_metrics.experiment.diagnosis import ranked_lists

        cap = check_int(cap, "drilldowns", low=0)
        plan = self.drilldown_plan(cap=0)
        lists = ranked_lists(self.subject, questions=plan["question_id"])  # the listed questions' only
        groups, where = [], {}
        for q, why in zip(plan["question_id"], plan["why"]):
            key = (why, lists.get(q, ()))
            if (key[1] or why.startswith("not logged")) and key in where:  # one drill-down per pattern
                where[key]["others"].append(q)
                continue
            group = {"question_id": q, "why": why, "others": []}
            where[key] = group
            groups.append(group)
        gains = [g for g in groups if g["why"] in ("newly hit", "improved")][:cap // 2]
        shown = {id(g) for g in gains}
        return [g for g in groups if g["why"] not in ("newly hit", "improved") or id(g) in shown][:cap]

    def question_table(self) -> pd.DataFrame:
        """Every answerable question × the baseline and the subject: ``question_id``, ``question``, ``type``, one
        column per run (named as :func:`run_labels` names them) with the rank of its first judged hit at the largest
        k (``<NA>``: none), and ``change`` (:meth:`moved`, ``""`` when unchanged); the changed questions first, each
        part in the golden set's order. What :meth:`question_view` shows the head of and
        :meth:`write_question_table` writes whole."""
        if "question_table" not in self._cache:
            k = max(self.subject.ks)
            runs = [r for r in (self.baseline, self.subject) if r is not None]
            labels = run_labels(*[r.name for r in runs]) if len(runs) == 2 else [r.name for r in runs]
            answerable = list(self.subject.golden.answerable)
            questions = self.subject.golden.questions
            text = {"question_id": answerable, "question": questions["question"].reindex(answerable).tolist(),
                    "type": questions["type"].reindex(answerable).tolist()}  # text as objects on pandas 2 and 3 alike
            table = pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in text.items()})
            for label, r in zip(labels, runs):
                first = _first_hits(r, k)
                table[label] = pd.array([first.get(q) for q in answerable], dtype="Int64")
            moved = dict(zip(self.moved()["question_id"], self.moved()["change"]))
            table["change"] = pd.Series([moved.get(q, "") for q in answerable], dtype=object)
            order = sorted(range(len(table)), key=lambda i: table["change"].iat[i] == "")  # stable: changed first
            self._cache["question_table"] = table.iloc[order].reset_index(drop=True)
        return self._cache["question_table"]

    def write_question_table(self, folder, name: str = QUESTION_CSV) -> Path:
        """Write :meth:`question_table` whole to ``folder/name`` as CSV (UTF-8, a header row; a question without a
        hit has an empty rank cell) and return its path: the file the report's page links beside its capped view
        (:func:`read_question_table` reads it back unchanged)."""
        path = Path(folder) / name
        self.question_table().to_csv(path, index=False, encoding="utf-8")
        return path

    def question_view(self, rows: int = QUESTION_ROWS, csv=None) -> HtmlView:
        """The head of :meth:`question_table` as the page shows it (at most ``rows`` questions, the changed ones
        first): the rank of the first judged hit (largest k; "-" for none), red where missed and green where hit; a
        small inline script filters to the changed questions and sorts (the table reads whole without it). ``csv``:
        the file holding every row (:meth:`write_question_table`), linked by its name (it lies beside the page)."""
        rows = check_int(rows, "rows", low=1)
        table = self.question_table()
        shown = table.head(rows)
        runs = list(table.columns[3:-1])
        moved = int((table["change"] != "").sum())
        records = [{"question_id": r[0], "question": r[1], "type": r[2],
                    "ranks": [None if pd.isna(v) else int(v) for v in r[3:-1]], "change": r[-1]}
                   for r in shown.itertuples(index=False, name=None)]
        return HtmlView("question_view.html.j2", {"rows": records, "runs": runs, "k": max(self.subject.ks),
                                                  "changed": moved, "total": len(table),
                                                  "csv": None if csv is None else Path(csv).name},
                        f"<question view: {len(table)} questions x runs {', '.join(runs)}, {moved} moved"
                        + (f", the first {len(records)} shown>" if len(records) < len(table) else ">"))

    def remaining_misses(self) -> list:
        """The subject's misses at the largest k (:meth:`ExperimentResult.misses`) that did not just move, among the
        questions its log held (:meth:`not_logged` lists the others)."""
        moved, absent = set(self.moved()["question_id"]), set(self.not_logged())
        return [q for q in self.subject.misses() if q not in moved and q not in absent]

    def not_logged(self) -> list:
        """The answerable questions the subject's log did not hold (each a miss of nothing retrieved)."""
        answerable = set(self.subject.golden.answerable)
        return [q for q in self.subject.missing_questions if q in answerable]

    def drilldown_plan(self, cap: int = DRILLDOWNS) -> pd.DataFrame:
        """Every question the report lists, in the order shown: the moved questions, then the remaining misses;
        ``why`` says which, ``drilldown`` whether it gets a drill-down (the first ``cap``), ``failure`` the
        subject's failure kind for a miss."""
        cap = check_int(cap, "drilldowns", low=0)
        moved = self.moved()
        rows = [{"question_id": q, "why": c} for q, c in zip(moved["question_id"], moved["change"])]
        rows += [{"question_id": q, "why": "missed" + (" in both runs" if self.baseline_record is not None else "")}
                 for q in self.remaining_misses()]
        rows += [{"question_id": q, "why": f"not logged by {self.subject.name}"} for q in self.not_logged()]
        plan = pd.DataFrame(rows, columns=["question_id", "why"])
        plan["drilldown"] = pd.Series([i < cap for i in range(len(plan))], index=plan.index, dtype=bool)
        questions = self.subject.golden.questions
        plan.insert(1, "question", plan["question_id"].map(questions["question"]))
        failures = self.subject.failures.set_index("question_id")
        plan["failure"] = plan["question_id"].map(failures["failure"]).fillna("")
        plan["first document"] = plan["question_id"].map(failures["first_document"]).fillna("")
        return plan

    def explain(self, question_id, why: str = "", others=()):
        """One question's drill-down: the baseline's and the subject's top k side by side (the subject alone when
        the baseline's log is not among this report's inputs), each item with its judges' verdicts and the text
        shared with a gold page highlighted."""
        after = self.subject.explain_data(question_id)
        before = self.baseline.explain_data(question_id) if self.baseline is not None else None
        return HtmlView("explain_pair.html.j2", {"q": after, "before": before, "why": why, "others": list(others),
                                                 "baseline_name": (self.baseline_record or {}).get("name")},
                        f"<drill-down of question {question_id!r}: {'hit' if after['hit'] else 'miss'} in the top "
                        f"{after['k']} of {self.subject.name}>")


def _first_hits(result, k: int) -> dict:
    """Question -> rank of the first item the headline judge credits within the top ``k`` (questions without one left
    out)."""
    judged = result.judged[result.primary]
    hits = judged[(judged["rank"] <= k) & judged["hit"].astype(bool)]
    return {q: int(r) for q, r in hits.groupby("question_id", sort=False)["rank"].min().items()}


def run_labels(a: str, b: str) -> tuple[str, str]:
    """Two runs' names as column labels: as they are, or ``(older)`` / ``(newer)`` added when they are equal."""
    return (a, b) if a != b else (f"{a} (older)", f"{b} (newer)")
