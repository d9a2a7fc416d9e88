"""Drill-downs: one question of an evaluated run, item by item, with what each judge said and the text that decided.

:func:`explain_data` is the plain data of :meth:`ExperimentResult.explain_data
<rag_metrics.experiment.result.ExperimentResult.explain_data>`; :func:`explain` renders it inline in JupyterLab
(``explain.html.j2``) and as one short line elsewhere.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.core.html import HtmlView
from rag_metrics.core.text import PAGE_MARKER, normalize
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.judges import describe_judge

__all__ = ["explain_data", "explain", "longest_common"]


def _rows(result, judge: str) -> dict:
    """Row positions of each question in ``judged[judge]``, grouped once (drill-downs reuse them)."""
    key = ("rows", judge)
    if key not in result._cache:
        result._cache[key] = result.judged[judge].groupby("question_id", sort=False).indices
    return result._cache[key]


def _gold_pages(result, question_id) -> list:
    if "gold" not in result._cache:
        result._cache["gold"] = result.golden.pages_by_question()
    return result._cache["gold"].get(question_id, [])


def explain_data(result, question_id, k: int | None = None) -> dict:
    """One question's drill-down as plain data (see :meth:`explain`): the question, its gold pages and the top-k
    items, each with every judge's verdict and its text split into segments, those shared with a gold page
    (± window) marked. Reuses the evaluation's page index and the judged rows grouped once, so a drill-down
    costs the question's items, not the whole run."""
    k = max(result.ks) if k is None else check_int(k, "k", func="explain")
    if question_id not in result.golden.questions.index:
        raise InputError(f"question {question_id!r} is not in the golden set.", question=question_id)
    q = result.golden.questions.loc[question_id]
    gold_pages = _gold_pages(result, question_id)
    judged = result.judged[result.primary]
    positions = _rows(result, result.primary).get(question_id, np.zeros(0, dtype=int))
    rows = judged.iloc[positions]
    rows = rows[rows["rank"] <= k].sort_values("rank", kind="stable")
    verdicts_by_rank = {}
    for name, table in result.judged.items():
        mine = table.iloc[_rows(result, name).get(question_id, np.zeros(0, dtype=int))]
        for rank, satisfies in zip(mine["rank"], mine["satisfies"]):
            verdicts_by_rank.setdefault(int(rank), {})[name] = bool(satisfies)
    index = result.page_index if result.page_index is not None else (
        PageIndex(result.corpus) if result.corpus is not None else None)
    judge = result.judges[result.primary]
    window = getattr(judge, "window", 1)
    f = getattr(judge, "min_chars", 24)
    rule = result.judges["overlap"].boilerplate if "overlap" in result.judges else None
    decides_by_text = result.primary == "overlap"  # only the overlap judge decides by shared text
    items = []
    for row in rows.itertuples(index=False):
        verdicts = verdicts_by_rank.get(int(row.rank), {})
        hit = bool(verdicts.get(result.primary))
        text = row.text if isinstance(row.text, str) else None
        segments = [(text or "", False)]
        longest = 0
        if text is not None and index is not None:
            norm = normalize(text)
            # the judges compare an item with the gold pages of its own document only (± window)
            near = [index.row[d, p2] for d, p in gold_pages if d == row.doc_id
                    for p2 in range(p - window, p + window + 1) if (d, p2) in index.row]
            # boilerplate (running headers, footers) is no evidence: it is not highlighted
            spans = [(a, b) for a, b, furniture in index.shared_spans(norm, near, f, rule) if not furniture]
            short = [(a, b) for a, b, furniture in index.shared_spans(norm, near, max(8, f // 2), rule)
                     if not furniture] if not spans else []
            longest = longest_common(norm, spans or short, [index.norm[r] for r in near])
            # the match that decides (the judge credited the item by it) is marked; other shared text is context
            kind = "decides" if spans and hit and decides_by_text else "context"
            segments = _segments(norm, spans or short, kind)
        items.append({"rank": int(row.rank), "doc_id": row.doc_id, "logged_doc_id": row.logged_doc_id,
                      "pages": list(row.pages), "score": None if row.score != row.score else float(row.score),
                      "verdicts": verdicts, "hit": hit, "segments": segments,
                      "markers": [int(n) for n in PAGE_MARKER.findall(text)] if text is not None else [],
                      "longest": longest, "threshold": f})
    return {"question_id": question_id, "question": q["question"], "type": q["type"],
            "answer": q["answer"], "gold": gold_pages, "k": k, "primary": result.primary,
            "judge": describe_judge(judge), "items": items, "run": result.name,
            "hit": any(i["hit"] for i in items), "normalized": index is not None,
            "unfindable": [] if index is None else [(d, p) for d, p in gold_pages if (d, p) in set(index.empty)]}


def explain(result, question_id, k: int | None = None) -> HtmlView:
    """One question's drill-down (:func:`explain_data`), rendered inline in JupyterLab; its repr is one line."""
    q = explain_data(result, question_id, k)
    return HtmlView("explain.html.j2", {"q": q}, f"<drill-down of question {q['question_id']!r} in run {q['run']}: "
                    f"{'hit' if q['hit'] else 'miss'} in the top {q['k']} under the {q['primary']} judge>")


def _segments(text: str, spans, kind: str = "decides") -> list[tuple[str, str | bool]]:
    """``text`` cut at ``spans``: ``(piece, kind)`` for a piece inside a span, ``(piece, False)`` between them."""
    out, pos = [], 0
    for a, b in spans:
        if a > pos:
            out.append((text[pos:a], False))
        out.append((text[a:b], kind))
        pos = b
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def longest_common(text: str, spans, pages) -> int:
    """The longest piece of ``text`` inside one of ``spans`` that stands, contiguous, on one of ``pages`` (normalized
    page texts): what "longest shared fragment" means. A span is made of overlapping fragments each found on a page,
    perhaps in different places, so its own length can overstate what is shared (12-character pieces found apart do
    not make a 49-character match)."""
    from difflib import SequenceMatcher

    best = 0
    for a, b in spans:
        piece = text[a:b]
        for page in pages:
            if len(piece) <= best:
                break
            if piece in page:
                best = len(piece)
                break
            m = SequenceMatcher(None, piece, page, autojunk=False).find_longest_match(0, len(piece), 0, len(page))
            best = max(best, m.size)
    return best
