"""Accepting a reviewed draft as a golden set, and the review page.

The rules that flag a question are in :mod:`rag_metrics.golden.flags`; the review file's round trip
(:func:`review_draft`, :func:`write_review`, :func:`read_decisions`) in :mod:`rag_metrics.golden.review_file`.
:func:`accept` writes the final golden set, each question with its provenance (generator, model, prompt version,
page, seed, reviewed/edited) and prints its fingerprint; :func:`review_html` shows each question beside its page,
the answer highlighted. Notebook 08's sentences and figure about a review are in :mod:`rag_metrics.lab.golden_lesson`.

:func:`answered_elsewhere` finds the limit of a generated set that review cannot fix: a question whose answer
another document's page also holds, while its gold names only the page it was written from.
"""

from __future__ import annotations

import json
import re
import unicodedata

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.files import atomic_write_text
from rag_metrics.io.jsonl import write_jsonl
from rag_metrics.golden.generate import Draft
from rag_metrics.golden.review_file import page_texts
from rag_metrics.golden.sampler import PageSample

__all__ = ["accept", "review_html", "find_span", "pages_without_questions", "answered_elsewhere"]


def accept(draft: Draft, decisions: pd.DataFrame, out, *, decisions_source=None, corpus=None):
    """Write the kept questions as a golden set (JSON lines) with provenance; return ``(GoldenSet, path)``.

    Next to it, ``<out>.meta.json``: the set's fingerprint, counts kept/dropped/edited, the draft and
    decisions files.

    Every draft question needs a decision and every decision a draft question. A reviewer's edit
    of ``question`` or ``answer`` is taken and recorded (``provenance.edited``). Each question's
    gold is its page: ``gold_docs [doc]``, ``gold_pages [[doc, page]]``. The set is read back
    with :func:`~rag_metrics.io.golden.load_golden` (against ``corpus`` when given) before it is
    returned, so it is valid by construction; its fingerprint is ``GoldenSet.fingerprint()``.
    """
    from rag_metrics.io.golden import load_golden

    q = draft.questions.set_index("question_id", drop=False)
    d = decisions.set_index("question_id", drop=False)
    where = {"path": decisions_source}
    unknown = [x for x in d.index if x not in q.index]
    if unknown:
        line = int(d.at[unknown[0], "line"]) if "line" in d.columns else None
        raise InputError(f"question {unknown[0]!r} is not in the draft" + (f" (and {len(unknown) - 1} more)"
                         if len(unknown) > 1 else "") + ".", line=line, question=unknown[0], **where)
    undecided = [x for x in q.index if x not in d.index]
    if undecided:
        raise InputError(f"question {undecided[0]!r} of the draft has no decision" + (f" (and {len(undecided) - 1} more)"
                         if len(undecided) > 1 else "") + "; every question needs keep or drop.", **where)
    kept = [x for x in q.index if d.at[x, "decision"] == "keep"]
    if not kept:
        raise InputError("every question was dropped; nothing to write.", **where)
    records = []
    for qid in kept:
        row, dec = q.loc[qid], d.loc[qid]
        question = dec.get("question") or row["question"]
        answer = dec.get("answer") or row["answer"]
        edited = question != row["question"] or (answer or None) != (row["answer"] or None)
        page = int(row["page"])
        records.append({
            "question_id": qid, "question": question, "type": row["type"] or "", "answer": answer or None,
            "gold_docs": [row["doc_id"]], "gold_pages": [[row["doc_id"], page]],
            "provenance": {"generator": row["generator"], "model": row["model"], "prompt_version": row["prompt_version"],
                           "doc_id": row["doc_id"], "page": page,
                           "seed": None if row["seed"] is None or row["seed"] != row["seed"] else int(row["seed"]),
                           "reviewed": True, "edited": bool(edited)}})
    path = write_jsonl(records, out)
    golden = load_golden(path, corpus=corpus)
    meta = {"fingerprint": golden.fingerprint(), "questions": len(records), "dropped": len(q) - len(kept),
            "edited": sum(r["provenance"]["edited"] for r in records), "draft": draft.info.get("source"),
            "decisions": None if decisions_source is None else str(decisions_source),
            "generators": sorted({str(r["provenance"]["generator"]) for r in records})}
    atomic_write_text(str(path) + ".meta.json", json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return golden, path


def find_span(text: str, needle: str | None) -> tuple[int, int] | None:
    """Where ``needle`` occurs in ``text``: exactly, else ignoring case, else after NFKC and whitespace folding
    (offsets mapped back to ``text``); None when it does not occur."""
    if not needle or not needle.strip():
        return None
    i = text.find(needle)
    if i >= 0:
        return i, i + len(needle)
    m = re.search(re.escape(needle), text, re.I)
    if m:
        return m.span()
    # fold both, keeping for every folded character the index of its source character
    folded, index = [], []
    for pos, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isspace():
                if folded and folded[-1] == " ":
                    continue
                c = " "
            folded.append(c)
            index.append(pos)
    target = " ".join(unicodedata.normalize("NFKC", needle).casefold().split())
    j = "".join(folded).find(target)
    if j < 0:
        return None
    return index[j], index[j + len(target) - 1] + 1


def review_html(review: pd.DataFrame, draft: Draft, sample: PageSample | None = None, *, title: str = "Golden set review") -> str:
    """One HTML page: every question (flagged first) beside its page text, the answer (or evidence) highlighted."""
    from rag_metrics.core.html import render

    pages = page_texts(sample)
    q = draft.questions.set_index("question_id")
    items = []
    for row in review.to_dict("records"):
        src = q.loc[row["question_id"]]
        page = pages.get((row["doc_id"], int(row["page"])))
        text = None if page is None else page["text"]
        span, marked = None, None
        if text is not None:
            start, end = src.get("evidence_start"), src.get("evidence_end")
            answer_span = find_span(text, row.get("answer"))
            if answer_span is not None:
                span, marked = answer_span, "answer"
            elif start is not None and start == start and end is not None:
                span, marked = (int(start), int(end)), "evidence"
            else:
                span = find_span(text, src.get("evidence"))
                marked = "evidence" if span else None
        segments = [] if text is None else ([(text, False)] if span is None else
                                            [(text[:span[0]], False), (text[span[0]:span[1]], True), (text[span[1]:], False)])
        items.append({**{k: ("" if v is None or (isinstance(v, float) and v != v) else v) for k, v in row.items()},
                      "reasons_list": [r for r in str(row.get("reasons") or "").split("; ") if r],
                      "segments": segments, "marked": marked, "title": "" if page is None else page.get("title", "")})
    items.sort(key=lambda it: it["decision"] != "drop")  # flagged first, stable otherwise
    counts = {"questions": len(items), "flagged": sum(1 for it in items if it["reasons_list"]),
              "pages": len({(it["doc_id"], it["page"]) for it in items})}
    return render("golden_review.html.j2", title=title, items=items, counts=counts,
                  without=pages_without_questions(draft, sample))


def pages_without_questions(draft: Draft, sample: PageSample | None) -> dict:
    """The sampled pages that gave no question, and why: ``sampled`` (pages sampled; None without the sample),
    ``written`` (questions the draft holds), ``pages`` (``[(doc_id, page, why)]``: the generator failed on the
    page -- its error -- or returned no question for it)."""
    failed = {(str(r["doc_id"]), int(r["page"])): str(r["error"]) for r in draft.failures.to_dict("records")}
    asked = set(zip(draft.questions["doc_id"].astype(str), draft.questions["page"].astype(int)))
    sampled = None if sample is None else [(str(d), int(p)) for d, p in zip(sample.pages["doc_id"], sample.pages["page"])]
    pages = [(d, p, f"failed: {failed[d, p]}" if (d, p) in failed else "the generator wrote no question")
             for d, p in (sampled if sampled is not None else sorted(failed)) if (d, p) not in asked]
    return {"sampled": None if sampled is None else len(sampled), "written": len(draft.questions), "pages": pages}


def answered_elsewhere(golden, corpus, *, share: float = 0.8, min_tokens: int = 3) -> dict:
    """For each question of a generated golden set, the pages of *other* documents that hold at least ``share`` of
    its answer's search tokens (:func:`rag_metrics.core.text.tokenize`): ``{question_id: [(doc_id, page), ...]}``,
    questions with no such page left out.

    A generated question's gold is the one page it was written from; a page of another document that holds the
    answer is a right retrieval that the golden set counts as a miss. Answers with fewer than ``min_tokens`` search
    tokens are skipped (too short to tell).

    >>> from rag_metrics.io.corpus import corpus_from_pages
    >>> from rag_metrics.io.golden import golden_from_records
    >>> corpus = corpus_from_pages([{"doc_id": "policy", "page": 1, "text": "Claims are paid on the fifth."},
    ...                             {"doc_id": "faq", "page": 2, "text": "Q: when? Claims are paid on the fifth."}])
    >>> g = golden_from_records([(1, {"question_id": "q", "question": "When are claims paid?", "type": "fact",
    ...                               "gold_docs": ["policy"], "gold_pages": [["policy", 1]],
    ...                               "answer": "Claims are paid on the fifth."})], corpus=corpus)
    >>> answered_elsewhere(g, corpus)
    {'q': [('faq', 2)]}
    """
    from rag_metrics.core.text import tokenize

    if not 0 < share <= 1:
        raise InputError(f"answered_elsewhere: share must be in (0, 1]. Got {share!r}.")
    pages = [(r.doc_id, int(r.page), set(tokenize(r.text))) for r in corpus.pages.itertuples()]
    gold_doc = golden.gold.dropna(subset=["doc_id"]).groupby("question_id")["doc_id"].agg(set)
    found = {}
    for qid, row in golden.questions.iterrows():
        answer = set(tokenize(row["answer"] or ""))
        if len(answer) < min_tokens or qid not in gold_doc:
            continue
        hits = [(d, p) for d, p, tokens in pages
                if d not in gold_doc[qid] and len(answer & tokens) / len(answer) >= share]
        if hits:
            found[qid] = hits
    return found
