"""Patterns a team must see before any drill-down, each stated with its count.

:func:`diagnose` looks at the evaluated runs of an experiment report (their logged items, top k at the largest k)
and at the questions that moved, and returns :class:`Finding` objects, most telling first:

* ``same ranking`` -- one list of items returned for several questions (:data:`MIN_SAME` or more), with its
  scores when they are all equal (``all scores 0.000``);
* ``constant scores`` -- every score of a run equal (all zero included);
* ``empty texts`` / ``duplicated texts`` -- items with no text; questions whose top k holds one text twice;
* ``dominant document`` -- one document holding more than :data:`DOMINANT_SHARE` of a run's items;
* ``concentrated losses`` -- the newly missed (or worsened) questions sharing a language, a question type or a gold
  document far more than the answerable questions overall (:data:`CONCENTRATED_SHARE` of at least
  :data:`MIN_LOSSES`, :data:`CONCENTRATION_EXCESS` above its share overall);
* ``short depth`` -- a cutoff k deeper than what the log holds;
* ``identical logs`` -- two runs that returned the same items for every question;
* ``partial log`` (:func:`coverage_finding`, placed first by the report) -- the two runs compared did not log the same
  questions: the questions one of them left out would read as misses, so the verdict compares those both logged.

Sentences are plain text (run names, documents and question IDs come from users' files): escape them on every
HTML or Markdown path (the report's template does).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from rag_metrics.core.text import KANA, KANJI

__all__ = ["Finding", "diagnose", "coverage_finding", "same_rankings", "ranked_lists", "language", "MIN_SAME", "DOMINANT_SHARE", "CONCENTRATED_SHARE",
           "MIN_LOSSES",
           "CONCENTRATION_EXCESS"]

MIN_SAME = 3
"""A list of items returned for at least this many questions is a pattern (two questions can share a list by chance)."""
DOMINANT_SHARE = 0.5
"""A document holding more than this share of a run's top-k items dominates it."""
CONCENTRATED_SHARE = 0.8
"""Losses are concentrated in a group when at least this share of them fall in it ..."""
MIN_LOSSES = 3
"""... and there are at least this many losses ..."""
CONCENTRATION_EXCESS = 0.2
"""... and the group's share of the losses exceeds its share of all answerable questions by at least this much."""


@dataclass(frozen=True)
class Finding:
    """One pattern: ``kind`` (module docstring), the ``run`` it was seen in (None: across runs), ``count`` (how many
    questions, items or runs it covers), the ``sentence`` that states it, and the ``questions`` it covers."""

    kind: str
    run: str | None
    count: int
    sentence: str
    questions: tuple = ()


_KANA = re.compile(f"[{KANA}]")
_HAN = re.compile(f"[{KANJI}]")
_HANGUL = re.compile("[\uac00-\ud7af]")


def language(text) -> str:
    """The writing of a question, told by its script: ``Japanese`` (kana), ``Korean`` (hangul), ``Chinese`` (Han
    without kana), else ``Latin-script`` (an empty or missing text too)."""
    text = text if isinstance(text, str) else ""
    if _KANA.search(text):
        return "Japanese"
    if _HANGUL.search(text):
        return "Korean"
    if _HAN.search(text):
        return "Chinese"
    return "Latin-script"


def _item_key(doc, pages, text) -> tuple:
    return (doc if isinstance(doc, str) else None, tuple(pages) if isinstance(pages, (tuple, list)) else (),
            text if isinstance(text, str) else None)


def _top(result) -> pd.DataFrame:
    run = result.run
    return run[run["rank"] <= max(result.ks)].sort_values(["question_id", "rank"], kind="stable")


def _lists(top: pd.DataFrame, *columns) -> dict:
    """Question -> ``[(document, pages, text), ...]`` of the rows of ``top`` in their order, and beside it the
    values of ``columns`` per question: one pass over plain lists (a DataFrame per question costs ~1 ms each)."""
    keys = map(_item_key, top["doc_id"].tolist(), top["pages"].tolist(), top["text"].tolist())
    extra = [top[c].tolist() for c in columns]
    out: dict = {}
    for i, (q, key) in enumerate(zip(top["question_id"].tolist(), keys)):
        entry = out.get(q)
        if entry is None:
            entry = out[q] = ([], *([] for _ in columns))
        entry[0].append(key)
        for values, column in zip(entry[1:], extra):
            values.append(column[i])
    return out


def ranked_lists(result, questions=None) -> dict:
    """Question -> its top-k items (largest k) as a comparable tuple of ``(document, pages, text)`` in rank order;
    ``questions``: only those (default every question the log holds)."""
    top = _top(result)
    if questions is not None:
        top = top[top["question_id"].isin(set(questions))]
    return {q: tuple(entry[0]) for q, entry in _lists(top).items()}


def same_rankings(result, min_questions: int = MIN_SAME) -> list[dict]:
    """Lists of top-k items (document, pages, text, in rank order) returned for ``min_questions`` or more questions
    of one run, largest group first: ``{"questions": [...], "items": [(doc, pages), ...], "scores": [...]}``."""
    groups: dict = {}
    scores: dict = {}
    for qid, (items, values) in _lists(_top(result), "score").items():
        key = tuple(items)
        groups.setdefault(key, []).append(qid)
        scores.setdefault(key, []).extend(values)
    found = [{"questions": qs, "items": [(d, p) for d, p, _ in key], "scores": scores[key]}
             for key, qs in groups.items() if len(qs) >= min_questions and key]
    return sorted(found, key=lambda g: -len(g["questions"]))


def _pages(pages) -> str:
    if not pages:
        return ""
    pages = sorted(pages)
    return f" p.{pages[0]}" if len(pages) == 1 else f" p.{pages[0]}–{pages[-1]}"


def _score_note(values) -> str:
    values = [v for v in values if v == v]
    if values and len(set(values)) == 1:
        return f", all scores {values[0]:.3f}"
    return ""


def _same(result) -> list[Finding]:
    out = []
    for g in same_rankings(result):
        docs = list(dict.fromkeys(d for d, _ in g["items"] if d))
        what = ", ".join(f"{d}{_pages([p for dd, pp in g['items'] if dd == d for p in pp])}" for d in docs[:3])
        more = f" and {len(docs) - 3} more documents" if len(docs) > 3 else ""
        out.append(Finding("same ranking", result.name, len(g["questions"]),
                           f"{result.name}: {len(g['questions'])} questions got the same list of {len(g['items'])} "
                           f"item(s) ({what or 'no document'}{more}){_score_note(g['scores'])}.",
                           tuple(g["questions"])))
    return out


def _scores(result) -> list[Finding]:
    scores = _top(result)["score"].dropna()
    if len(scores) < 2 or scores.nunique() != 1:
        return []
    return [Finding("constant scores", result.name, len(scores),
                    f"{result.name}: every one of its {len(scores)} scores is {scores.iloc[0]:.3f} -- the ranking "
                    "carries no score information.")]


def _texts(result) -> list[Finding]:
    top = _top(result)
    texts = top["text"].tolist()
    if not any(isinstance(t, str) for t in texts):
        return []  # a log without texts: nothing to say about them
    out = []
    blank = [not isinstance(t, str) or not t.strip() for t in texts]
    if any(blank):
        qs = tuple(dict.fromkeys(q for q, b in zip(top["question_id"].tolist(), blank) if b))
        n = sum(blank)
        out.append(Finding("empty texts", result.name, n,
                           f"{result.name}: {n} of {len(top)} items have no text ({len(qs)} question(s)).", qs))
    seen: dict = {}  # question -> the texts (not blank) of its top k so far; a text met again makes it a duplicate
    dup: dict = {}
    for q, t, b in zip(top["question_id"].tolist(), texts, blank):
        if b:
            continue
        held = seen.setdefault(q, set())
        if t in held:
            dup[q] = True
        held.add(t)
    dup = list(dup)
    if dup:
        out.append(Finding("duplicated texts", result.name, len(dup),
                           f"{result.name}: {len(dup)} question(s) hold the same text twice or more in their top "
                           f"{max(result.ks)}.", tuple(dup)))
    return out


def _dominant(result) -> list[Finding]:
    docs = _top(result)["doc_id"].dropna()
    if len(docs) == 0 or docs.nunique() < 2:
        return []
    doc, n = Counter(docs).most_common(1)[0]
    if n / len(docs) <= DOMINANT_SHARE:
        return []
    return [Finding("dominant document", result.name, int(n),
                    f"{result.name}: {doc} holds {n} of its {len(docs)} top-{max(result.ks)} items ({n / len(docs):.0%}).")]


def _concentrated(moved: pd.DataFrame, golden, subject) -> list[Finding]:
    lost = moved.loc[moved["change"].isin(["newly missed", "worsened"]), "question_id"].tolist()
    if len(lost) < MIN_LOSSES:
        return []
    questions = golden.questions
    answerable = set(golden.answerable)
    everyone = [q for q in subject.evaluation.per_question.index if q in answerable]
    by_question = golden.pages_by_question()
    gold_docs = {q: list(dict.fromkeys(d for d, _ in by_question.get(q, []))) for q in everyone}
    facets = {"language": lambda q: language(questions.at[q, "question"]) if q in questions.index else None,
              "question type": lambda q: questions.at[q, "type"] if q in questions.index else None}
    facets["gold document"] = lambda q: gold_docs[q][0] if gold_docs.get(q) else None
    kind = "newly missed" if set(moved.loc[moved["question_id"].isin(lost), "change"]) == {"newly missed"} else "lost"
    out = []
    for facet, of in facets.items():
        values = Counter(of(q) for q in lost)
        value, n = values.most_common(1)[0]
        if value is None or n / len(lost) < CONCENTRATED_SHARE:
            continue
        overall = sum(of(q) == value for q in everyone)
        if n / len(lost) - overall / max(len(everyone), 1) < CONCENTRATION_EXCESS:  # no more than among all questions
            continue
        label = {"language": f"are {value}", "question type": f"are of type {value}",
                 "gold document": f"have {value} as gold document"}[facet]
        out.append(Finding("concentrated losses", subject.name, n,
                           f"{n} of {len(lost)} {kind} questions {label} ({overall} of {len(everyone)} questions "
                           "overall).", tuple(q for q in lost if of(q) == value)))
    return out


def _identical(results) -> list[Finding]:
    out = []
    cols = ["question_id", "rank", "doc_id", "pages", "text"]
    for a, b in zip(results, results[1:]):
        ta, tb = (r.run[[c for c in cols if c in r.run.columns]].astype(str).reset_index(drop=True) for r in (a, b))
        if len(ta) and ta.shape == tb.shape and ta.equals(tb):
            out.append(Finding("identical logs", None, 2,
                               f"{a.name} and {b.name} returned identical items for every question: their logs hold "
                               "the same content."))
    return out


def _depth(result) -> list[Finding]:
    over = [k for k in result.ks if k > result.depth]
    if not over:
        return []
    return [Finding("short depth", result.name, result.depth,
                    f"{result.name} logged at most {result.depth} item(s) per question, fewer than k = "
                    f"{', '.join(map(str, over))}.")]


def diagnose(results, subject, moved: pd.DataFrame, golden) -> list[Finding]:
    """Every pattern of the module docstring found in ``results`` (the runs' evaluations, oldest first; ``subject``
    among them) and ``moved`` (:func:`rag_metrics.experiment.verdict.moved_questions` with ``question_id`` and
    ``change``), most telling first: losses concentrated, then per run (the subject first) same rankings, constant
    scores, texts, a dominant document, short depth, then identical logs."""
    ordered = [subject] + [r for r in reversed(results) if r is not subject]
    found = _concentrated(moved, golden, subject) if len(moved) else []
    for r in ordered:
        found += _same(r) + _scores(r) + _texts(r) + _dominant(r) + _depth(r)
    return found + _identical(results)


def _ids(questions, shown: int = 5) -> str:
    more = len(questions) - shown
    return ", ".join(map(str, questions[:shown])) + (f" and {more} more" if more > 0 else "")


def coverage_finding(coverage: dict, subject: str, baseline: str) -> Finding:
    """The ``partial log`` finding of a comparison whose two runs logged different questions (``coverage``:
    :func:`rag_metrics.experiment.experiment_report.experiment_report`'s, with ``all``, the verdict over every
    question)."""
    both, whole = len(coverage["both"]), coverage["all"]
    gone, back = coverage["subject_only_missing"], coverage["baseline_only_missing"]
    parts = []
    if gone:
        parts.append(f"{subject} logged {coverage['subject_logged']} of the {coverage['questions']} questions, "
                     f"{len(gone)} fewer than {baseline} ({baseline} logged {coverage['baseline_logged']}); not "
                     f"logged: {_ids(gone)}.")
    if back:
        parts.append(f"{baseline} did not log {len(back)} question(s) {subject} logged: {_ids(back)}.")
    parts.append(f"The verdict compares the {both} question(s) both logged; over every question, counting what a run "
                 f"did not log as a miss, the change would read {whole.delta:+.3f} ({whole.outcome}).")
    return Finding("partial log", subject, len(gone) + len(back), " ".join(parts), tuple(gone) + tuple(back))


class DiagnosisView:
    """:meth:`ExperimentReport.diagnosis`: ``findings`` in order; renders as the page shows it. ``in_box``: the
    findings the verdict box states already -- the page names them with their questions instead of saying them
    twice."""

    def __init__(self, findings, in_box=()):
        self.findings = list(findings)
        self.in_box = [f for f in in_box if f in self.findings]

    def __iter__(self):
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def __repr__(self) -> str:  # the sentences, cut short: the HTML shows them whole
        text = "\n".join(f.sentence for f in self.findings) or "no pattern found"
        return text if len(text) <= 480 else text[:477] + "..."

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import render

        boxed = {id(f) for f in self.in_box}
        return render("diagnosis.html.j2", findings=[(f, id(f) in boxed) for f in self.findings])
