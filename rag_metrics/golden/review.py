"""Review of a draft: flag the questions that only make sense with the page in view, then accept.

:func:`flag_context_dependent` returns the reasons a question looks context-dependent (an empty
list when none), from these rules, English and Japanese (:data:`PATTERNS`):

============================  ====================================================================
``points_at_page``            deixis aimed at the text: *this page/section/script/table*, *the
                              present document*; この・その・当該・本・同 + ページ/節/章/条/文書/
                              規程/スクリプト/表/図…, 本書, 同書
``above_below``               *the above*, *the table below*, *the following*, *as described*,
                              *mentioned above*; 上記,
                              下記, 前述, 後述, 上述, 以下の (not after an amount: 3万円以下の is "or less")
``here``                      *here*, *herein*, *in this context*, *in the text/passage*; ここで, ここでは,
                              本文, 文中, 文脈
``quoted_expression``         a quoted expression asked about as wording: *the expression "defence
                              base"*; 「…」という表現・言葉・用語・記述・言い回し
``numbered_reference``        figure, table, page, section, step, clause numbers: *Table 2*, *page 4*,
                              *section 3.1*; 図1, 表２, 3ページ, 第4条, 第2章
``according_to_the_document`` *according to the document/text/policy/manual/guide*
``the_author``                *the author*, *the writer*; 筆者, 著者, 作成者
``pronoun_without_antecedent`` a question that opens with *this/that/it/they* (not *this year*) or asks
                              *what does it say/mean*; a question that opens with この・その・あの・これ・それ
``names_the_document``        the document's title (or its ID written as words) in the question;
                              for a Japanese title, any 6 consecutive kana/kanji of it
``answer_not_on_page``        an extractive generator's answer, or an LLM's quoted evidence, that does
                              not occur on its page after normalization (NFKC, whitespace, case)
============================  ====================================================================

:func:`near_duplicates` flags a question whose character-trigram Jaccard similarity with an
earlier one (NFKC, lower-case, spaces and punctuation removed) reaches ``threshold``.

The review file (:func:`write_review`, CSV with a byte-order mark so spreadsheet programs read
Japanese, or JSON lines by extension) has a ``decision`` column pre-filled ``drop`` for a flagged
question (``reasons`` says why) and ``keep`` otherwise; a reviewer changes decisions and may edit
``question`` and ``answer`` in place. A CSV cell that a spreadsheet would run as a formula (``=``, ``+``,
``-``, ``@`` first) is written with a leading ``'`` (:func:`neutralize_cell`) and read back without it
(:func:`restore_cell`), so ``=HYPERLINK(...)`` in a generated question stays text. :func:`accept` writes the final golden set, each question
with its provenance (generator, model, prompt version, page, seed, reviewed/edited) and prints
its fingerprint; :func:`review_html` shows each question beside its page, the answer highlighted.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError, check_choice
from ..files import atomic_write_text
from ..io.csvfile import read_csv
from ..io.jsonl import iter_jsonl, write_jsonl
from ..text import CJK_CHAR, normalize
from .generate import Draft
from .sampler import PageSample

__all__ = ["Pattern", "PATTERNS", "flag_context_dependent", "near_duplicates", "review_draft", "write_review",
           "read_decisions", "accept", "review_html", "REVIEW_COLUMNS", "DECISIONS", "find_span", "neutralize_cell",
           "restore_cell"]


@dataclass(frozen=True)
class Pattern:
    """One rule of :func:`flag_context_dependent`: ``name``, ``language`` ("en"/"ja"), the regex and the reason."""

    name: str
    language: str
    regex: re.Pattern
    reason: str


_EN_TEXT_NOUNS = (r"page|section|chapter|paragraph|passage|excerpt|text|document|table|figure|diagram|chart|list|"
                  r"script|code|snippet|command|example|clause|article|appendix|guide|manual|policy|handbook|memo|"
                  r"report|file|sentence|definition")
_JA_TEXT_NOUNS = (r"ページ|頁|節|章|条|項|段落|文書|資料|ガイド|規程|規約|規則|マニュアル|手引き|スクリプト|コード|"
                  r"プログラム|コマンド|表|図|例|手順書|記述|説明|文章|箇所|一文|部分|書類|抜粋|定義")

PATTERNS: tuple[Pattern, ...] = (
    Pattern("points_at_page", "en", re.compile(
        rf"\b(?:this|that|these|those|the present|the current)\s+(?:{_EN_TEXT_NOUNS})s?\b", re.I),
        "points at the page"),
    Pattern("above_below", "en", re.compile(
        r"\b(?:the above|above-mentioned|aforementioned|(?:mentioned|described|shown|listed|stated|given) (?:above|below)"
        r"|the following|below-mentioned|as (?:shown|described|mentioned|stated|listed)|the preceding|the previous "
        rf"(?:section|page|paragraph|step)|(?:{_EN_TEXT_NOUNS})s? (?:above|below))\b", re.I),
        "refers to text above or below"),
    Pattern("here", "en", re.compile(
        r"\b(?:here|herein|hereafter|hereunder|in this context|in (?:the|this) (?:text|passage|excerpt)|on (?:the|this) "
        r"page)\b", re.I),
        "asks about 'here'"),
    Pattern("quoted_expression", "en", re.compile(
        r"\b(?:expression|phrase|wording|sentence|statement|quote)\s+[\"“'‘][^\"”'’]+[\"”'’]"
        r"|[\"“'‘][^\"”'’]+[\"”'’]\s+(?:expression|phrase|wording)\b", re.I),
        "asks about a quoted expression of the text"),
    Pattern("numbered_reference", "en", re.compile(
        r"(?:\b(?:figure|fig\.|table|page|p\.|pp\.|section|chapter|appendix|annex|step|item|line|paragraph|para\.|"
        r"clause|article|exhibit)|§)\s*\(?(?:\d+(?:\.\d+)*|[IVX]+)\b", re.I),
        "cites a figure, table, page or section number"),
    Pattern("according_to_the_document", "en", re.compile(
        r"\baccording to (?:the|this|that) (?:document|text|page|passage|policy|manual|guide|handbook|excerpt|article|"
        r"author|report|script|section)\b", re.I),
        "refers to the document"),
    Pattern("the_author", "en", re.compile(r"\b(?:the|this) (?:author|writer)s?\b", re.I),
            "refers to the text's author"),
    Pattern("pronoun_without_antecedent", "en", re.compile(
        r"^(?:this|that|it|they|these|those)\b(?!\s+(?:year|month|week|quarter)\b)|\bwhat (?:does|do|did) (?:it|this|that|they) "
        r"(?:say|mean|describe|show|state|recommend|require)\b", re.I),
        "a pronoun with nothing it could refer to in the question"),
    Pattern("points_at_page", "ja", re.compile(
        rf"(?:(?:この|その|あの|当該|本|同)(?:{_JA_TEXT_NOUNS})|本書|同書)"),
        "points at the page"),
    Pattern("above_below", "ja", re.compile(
        r"(?:上記|下記|前記|後記|上述|前述|後述|右記|左記|(?<![0-9０-９円万千百十歳日件人個点%％])以下の|次の(?:うち|中|記述|項目|表|図|条件))"),
        "refers to text above or below"),
    Pattern("here", "ja", re.compile(r"(?:ここ(?:で|では|に|の|でいう|で言う)|本文|文中|文脈)"),
        "asks about 'here'"),
    Pattern("quoted_expression", "ja", re.compile(
        r"「[^」]+」(?:という|との|と言う|って)(?:表現|言葉|語|用語|文|記述|言い回し|一文|フレーズ)"),
        "asks about a quoted expression of the text"),
    Pattern("the_author", "ja", re.compile(r"(?:筆者|著者|作成者|執筆者|作者)"), "refers to the text's author"),
    Pattern("pronoun_without_antecedent", "ja", re.compile(r"^(?:この|その|あの|これ|それ|あれ)(?!から|まで)"),
            "a pronoun with nothing it could refer to in the question"),
    Pattern("numbered_reference", "ja", re.compile(
        r"(?:(?:図|表|別表|別紙|付録|ステップ)\s*[0-9０-９]+|[0-9０-９]+\s*(?:ページ|頁)"
        r"|第\s*[0-9０-９一二三四五六七八九十百]+\s*(?:章|節|条|項|号|ページ)|[pP]\.\s*[0-9]+)"),
        "cites a figure, table, page or section number"),
)

DECISIONS = ("keep", "drop")
REVIEW_COLUMNS = ["question_id", "decision", "reasons", "question", "answer", "type", "doc_id", "page", "evidence",
                  "generator"]


def _fold(text: str) -> str:
    return normalize(text).casefold()


def _names_document(question: str, title: str | None, doc_id: str | None) -> str | None:
    q = _fold(question)
    for name in (title, None if doc_id is None else re.sub(r"[_\-/]+", " ", doc_id)):
        if not name or len(name.strip()) < 4:
            continue
        folded = _fold(name)
        if folded in q:
            return name
        if CJK_CHAR.search(folded) and len(folded) > 6:
            for i in range(len(folded) - 5):
                window = folded[i:i + 6]
                if len(CJK_CHAR.findall(window)) == 6 and window in q:
                    return window
    return None


def flag_context_dependent(question: str, *, title: str | None = None, doc_id: str | None = None,
                           page_text: str | None = None, answer: str | None = None, evidence: str | None = None,
                           extractive: bool = False) -> list[str]:
    """Why ``question`` looks like it only makes sense with its page in view (module docstring); [] if no reason.

    Parameters
    ----------
    question : str
    title, doc_id : the source document's title and ID (a question naming them is flagged)
    page_text, answer, evidence : the page and what the generator took from it; with
        ``extractive=True`` an answer not on the page is flagged, otherwise a quoted ``evidence``
        not on the page is
    """
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}.")
    text = unicodedata.normalize("NFKC", question)
    reasons = []
    for pattern in PATTERNS:
        m = pattern.regex.search(text)
        if m:
            reasons.append(f"{pattern.reason}: '{m.group(0).strip()}'")
    leaked = _names_document(question, title, doc_id)
    if leaked:
        reasons.append(f"names the document: '{leaked}'")
    if page_text is not None:
        page = _fold(page_text)
        checked = answer if extractive else evidence
        if checked and _fold(checked) not in page:
            what = "the answer" if extractive else "the quoted evidence"
            reasons.append(f"{what} does not occur on its page")
    return list(dict.fromkeys(reasons))


_STRIP = re.compile(r"[\s\W_]+", re.U)


def _trigrams(text: str) -> set[str]:
    s = _STRIP.sub("", unicodedata.normalize("NFKC", text).casefold())
    return {s[i:i + 3] for i in range(max(len(s) - 2, 1))} if s else set()


def near_duplicates(questions, threshold: float = 0.7) -> list[tuple[int, int, float]]:
    """``(i, j, similarity)`` for every pair ``i < j`` whose character-trigram Jaccard similarity is >= ``threshold``.

    Quadratic in the number of questions (a draft of a few hundred takes milliseconds).
    """
    if not 0 < threshold <= 1:
        raise InputError(f"threshold must be in (0, 1]; got {threshold!r}.")
    grams = [_trigrams(q) for q in questions]
    pairs = []
    for j in range(len(grams)):
        for i in range(j):
            union = len(grams[i] | grams[j])
            sim = len(grams[i] & grams[j]) / union if union else 1.0
            if sim >= threshold:
                pairs.append((i, j, round(sim, 3)))
    return pairs


def _page_texts(sample: PageSample | None) -> dict:
    if sample is None:
        return {}
    return {(r["doc_id"], int(r["page"])): r for r in sample.pages.to_dict("records")}


def review_draft(draft: Draft, sample: PageSample | None = None, *, duplicate_threshold: float = 0.7) -> pd.DataFrame:
    """The review table (:data:`REVIEW_COLUMNS`): every draft question with its reasons and a pre-filled decision.

    ``sample`` supplies the page text (for the answer check) and titles; without it those checks
    are skipped.
    """
    pages = _page_texts(sample)
    q = draft.questions.reset_index(drop=True)
    reasons = []
    for row in q.to_dict("records"):
        page = pages.get((row["doc_id"], int(row["page"])))
        reasons.append(flag_context_dependent(
            row["question"], title=(page or {}).get("title") or row.get("title"), doc_id=row["doc_id"],
            page_text=None if page is None else page["text"], answer=row.get("answer"), evidence=row.get("evidence"),
            extractive=bool(row.get("extractive"))))
    for i, j, sim in near_duplicates(list(q["question"]), duplicate_threshold):
        reasons[j].append(f"near-duplicate of {q.at[i, 'question_id']} (similarity {sim:.2f})")
    table = pd.DataFrame({
        "question_id": q["question_id"], "decision": ["drop" if r else "keep" for r in reasons],
        "reasons": ["; ".join(r) for r in reasons], "question": q["question"], "answer": q["answer"],
        "type": q["type"], "doc_id": q["doc_id"], "page": q["page"].astype(int), "evidence": q["evidence"],
        "generator": q["generator"]})
    return table[REVIEW_COLUMNS]


def write_review(review: pd.DataFrame, path) -> Path:
    """Write the review table: ``.jsonl`` as JSON lines, anything else as CSV (UTF-8 with a byte-order mark)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
               for r in review.to_dict("records")]
    if path.suffix.lower() == ".jsonl":
        return write_jsonl(records, path)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(review.columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else neutralize_cell(v) for k, v in r.items()} for r in records)
    atomic_write_text(path, buffer.getvalue(), encoding="utf-8-sig")
    return path


_FORMULA = re.compile(r"'*[=+\-@\t\r]")


def neutralize_cell(value):
    """A text cell as written to a CSV made for spreadsheets: a cell a spreadsheet would run as a formula (starting
    with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'``, which spreadsheet programs
    show as text. Cells that already start with quotes before such a character get one more, so that
    :func:`restore_cell` gives back exactly the original. Other values are returned as they are."""
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def restore_cell(value):
    """The inverse of :func:`neutralize_cell`: one leading ``'`` removed from a neutralized cell."""
    if isinstance(value, str) and value.startswith("'") and _FORMULA.match(value[1:]):
        return value[1:]
    return value


def read_decisions(path) -> pd.DataFrame:
    """A reviewed file: question_id, decision (keep/drop), and -- when present -- edited question and answer.

    Errors name the line: a missing column, an empty or unknown decision, a question listed twice.
    """
    path = Path(path)
    rows = []
    if path.suffix.lower() == ".jsonl":
        rows = list(iter_jsonl(path, "review decisions (JSON lines with question_id and decision)"))
        columns = set().union(*(r.keys() for _, r in rows)) if rows else set()
    else:
        header, rows = read_csv(path, "review decisions (CSV with question_id and decision)")
        columns = set(header)
        rows = [(line, {k: restore_cell(v) for k, v in row.items()}) for line, row in rows]
    missing = [c for c in ("question_id", "decision") if c not in columns]
    if missing:
        raise InputError(f"missing column(s) {missing}; expected the review file of `rag-metrics golden review` "
                         f"(found {sorted(columns)}).", path=path, line=1)
    out, seen = [], {}
    for line, row in rows:
        qid = row.get("question_id")
        if not isinstance(qid, str) or not qid.strip():
            raise InputError(f"question_id {qid!r} is empty.", path=path, line=line, field="question_id")
        qid = qid.strip()
        if qid in seen:
            raise InputError(f"question {qid!r} is listed twice (also at line {seen[qid]}).", path=path, line=line,
                             field="question_id")
        seen[qid] = line
        decision = row.get("decision")
        decision = decision.strip().lower() if isinstance(decision, str) else decision
        if decision not in DECISIONS:
            check_choice(row.get("decision"), DECISIONS, "decision", what=f"question {qid!r}:", path=path, line=line,
                         field="decision", question=qid)
        rec = {"question_id": qid, "decision": decision, "line": line}
        for key in ("question", "answer"):
            value = row.get(key)
            if value is not None and not isinstance(value, str):
                raise InputError(f"question {qid!r}: {key!r} must be text, got {value!r}.", path=path, line=line,
                                 field=key)
            rec[key] = value.strip() if isinstance(value, str) and value.strip() else None
        out.append(rec)
    if not out:
        raise InputError("no decision found.", path=path)
    return pd.DataFrame(out)


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
    from ..io.golden import load_golden

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
    from ..html import render

    pages = _page_texts(sample)
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
    return render("golden_review.html.j2", title=title, items=items, counts=counts)
