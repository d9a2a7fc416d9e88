"""A random sample of questions for people to judge completely: the judging sheet that the prediction-powered figure
needs (:func:`judging_sample` writes it, :func:`read_judging_sheet` reads it back with the one sheet reader,
:func:`~rag_metrics.io.sheets.read_sheet`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.core.text import normalize
from rag_metrics.io.sheets import NO, YES, positive_int_cell, read_sheet, text_cell, yes_no
from rag_metrics.labels.assessors import retrieved_pages
from rag_metrics.labels.label_audit import check_matches
from rag_metrics.labels.decisions import JUDGMENT_COLUMNS

__all__ = ["judging_sample", "read_judging_sheet", "SHEET_COLUMNS"]


SHEET_COLUMNS = ["question_id", "question", "answer", "doc_id", "page", "gold", "relevant", "why", "text"]
_YES, _NO = YES | {"relevant", "gold"}, NO | {"not relevant"}


def judging_sample(result, n: int, *, seed: int = 0, k: int | None = None) -> pd.DataFrame:
    """A judging sheet (:data:`SHEET_COLUMNS`): ``n`` answerable questions drawn at random (seeded) and every page
    the run retrieved for them in the top ``k``, for people to mark ``relevant`` yes or no. Gold pages come
    pre-marked ``yes``; a question with nothing retrieved has one row without a page. Judged completely, the sample
    is what the prediction-powered figure (:func:`rag_metrics.labels.assessor_agreement.assessed_figures`) corrects
    with."""
    import numpy as np

    n = check_int(n, "n", low=2, func="judging_sample")
    seed = check_int(seed, "seed", low=0, func="judging_sample")
    k = max(result.ks) if k is None else check_int(k, "k", func="judging_sample")
    check_matches(result)
    golden = result.golden
    answerable = [q for q in golden.answerable if q in set(golden.gold_pages["question_id"])]
    if n > len(answerable):
        raise InputError(f"judging_sample: {n} questions asked, the golden set has {len(answerable)} answerable ones.")
    chosen = set(np.random.default_rng(seed).choice(len(answerable), size=n, replace=False).tolist())
    sample = [q for i, q in enumerate(answerable) if i in chosen]
    pages, _ = retrieved_pages([(result.name, result)], result.corpus, k=k)
    texts = {(d, int(p)): t for d, p, t in zip(result.corpus.pages["doc_id"], result.corpus.pages["page"],
                                                result.corpus.pages["text"])}
    gold = set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"].astype(int)))
    rows = []
    for q in sample:
        mine = pages[pages["question_id"] == q].drop_duplicates(["doc_id", "page"])
        base = {"question_id": q, "question": golden.questions.at[q, "question"], "answer": golden.questions.at[q, "answer"]}
        if not len(mine):
            rows.append({**base, "doc_id": None, "page": None, "gold": False, "relevant": None, "why": None, "text": None})
        for d, p in zip(mine["doc_id"], mine["page"]):
            is_gold = (q, d, int(p)) in gold
            rows.append({**base, "doc_id": d, "page": int(p), "gold": is_gold, "relevant": "yes" if is_gold else None,
                         "why": None, "text": normalize(texts.get((d, int(p)), ""))})
    sheet = pd.DataFrame(rows, columns=SHEET_COLUMNS)
    sheet["page"] = pd.Series([r["page"] for r in rows], dtype=object, index=sheet.index)  # ints, None: no "2.0"
    return sheet


def _check_page(doc: str, page: int, n_pages: dict, *, who: str, path, line) -> None:
    """Refuse a document the corpus does not hold (naming the one it holds under another case, or a close ID) and a
    page beyond its document's last page."""
    if doc not in n_pages:
        import difflib

        close = [d for d in n_pages if d.casefold() == doc.casefold()] or \
            difflib.get_close_matches(doc, list(n_pages), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InputError(f"{who}: document {doc!r} is not in the corpus{hint}.", path=path, line=line, field="doc_id")
    if page > n_pages[doc]:
        raise InputError(f"{who}: page {page} of {doc!r} is beyond its last page ({n_pages[doc]}).", path=path,
                         line=line, field="page")


def read_judging_sheet(path, *, by: str | None = None, golden=None, corpus=None) -> tuple[pd.DataFrame, list]:
    """A filled judging sheet (:func:`judging_sample`): ``(judgments, sampled question IDs)``. Every row with a page
    needs ``relevant`` yes or no; errors name the line. With ``golden`` (the set the sheet was drawn from) a question
    it does not hold, a question without an answer (no_answer) and a gold page marked no are refused too; with
    ``corpus``, a document it does not hold (a close ID named) and a page beyond its document's last page."""
    path = Path(path)
    n_pages = None if corpus is None else corpus.documents["n_pages"].to_dict()
    gold = set() if golden is None else \
        set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"].astype(int)))
    answerable = None if golden is None else set(golden.answerable)
    _, rows = read_sheet(path, expected="the sheet of `rag-metrics labels sample`",
                         required=("question_id", "doc_id", "page", "relevant"), key="question_id", noun="question")
    judgments, sample, seen = [], [], {}
    for line, qid, row in rows:
        if golden is not None and qid not in golden.questions.index:
            raise InputError(f"question_id {qid!r} is not in the golden set {golden.source}; a sheet is drawn from "
                             "the set it is judged with.", path=path, line=line, field="question_id")
        if answerable is not None and qid not in answerable:
            raise InputError(f"question_id {qid!r} has no answer in the golden set ({golden.questions.at[qid, 'type']}): "
                             "there is no relevant page to judge.", path=path, line=line, field="question_id")
        if qid not in sample:
            sample.append(qid)
        doc = row.get("doc_id")
        if doc is None or (isinstance(doc, str) and not doc.strip()):
            continue  # nothing retrieved for the question
        page = positive_int_cell(row.get("page"), path, line, "page", f"question {qid!r}")
        if n_pages is not None:
            _check_page(doc.strip(), page, n_pages, who=f"question {qid!r}", path=path, line=line)
        value = row.get("relevant")
        relevant = yes_no(value, _YES, _NO)
        if relevant is None:
            raise InputError(f"question {qid!r}, {doc!r} p.{page}: relevant {value!r}; write yes or no.", path=path,
                             line=line, field="relevant")
        key = (qid, doc.strip(), page)
        if key in seen:
            raise InputError(f"question {qid!r}, {doc!r} p.{page} is listed twice (also at line {seen[key]}).",
                             path=path, line=line, field="page")
        if not relevant and key in gold:
            raise InputError(f"question {qid!r}, {doc!r} p.{page} is a gold page, marked relevant "
                             f"{value!r}: the golden set says it is relevant; mark it yes, or remove the page from the golden set by hand if it is "
                             "wrong.", path=path, line=line, field="relevant")
        seen[key] = line
        judgments.append({"question_id": qid, "doc_id": doc.strip(), "page": page, "relevant": relevant,
                          "by": by or row.get("by") or None, "at": row.get("at") or None,
                          "why": text_cell(row.get("why")), "source": "judging sample"})
    return pd.DataFrame(judgments, columns=JUDGMENT_COLUMNS), sample
