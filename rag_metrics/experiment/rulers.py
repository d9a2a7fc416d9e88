"""Rulers compared on everything reported: the same items judged by every ruler, what each credits, what it cannot see.

Functions over :class:`~rag_metrics.experiment.evaluate.ExperimentResult` (also reachable as its methods):

* :func:`ruler_table` -- every headline measure (hit@k at every k, MRR, Recall@k) under every ruler that applies:
  the document judge, the logged (or located) page metadata, the ``[p.N]`` markers, content overlap with
  boilerplate left out (the default) and -- to show what page furniture does -- content overlap with boilerplate
  kept;
* :func:`ruler_changes` -- the change between two runs under each ruler, measure by measure (a change that shows
  under one ruler and not under another is the ruler's, not the retriever's);
* :func:`ruler_disagreements` -- the items one ruler credits and another does not, both ways (false hits as well
  as misses), with the text the item shares with a gold page (± window) and whether all of it is boilerplate;
* :func:`unfindable_gold` -- gold pages without text (scanned pages): no text judge can find them; their
  questions are flagged.

And, to show a ruler's failure modes on the sample corpus without a PDF toolchain (notebook 03):

* :func:`with_running_text` -- a corpus with a running header and/or footer on every page, as a PDF reader gives
  such pages back (the tests check it against reportlab PDFs read by the package's PDF reader);
* :func:`pages_as_chunks` -- one chunk per page, as LangChain's ``PyPDFLoader`` hands pages to a retriever.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from rag_metrics.core.errors import check_choice, check_int
from rag_metrics.judging.boilerplate import DEFAULT_BOILERPLATE
from rag_metrics.judging.judges import describe_judge, judge_run, judged_frame
from rag_metrics.core.text import normalize
from rag_metrics.measures.page_level import evaluate_judged

__all__ = ["ruler_table", "ruler_changes", "ruler_disagreements", "unfindable_gold", "raw_overlap", "RAW_OVERLAP",
           "with_running_text", "pages_as_chunks"]

RAW_OVERLAP = "overlap, boilerplate kept"


def raw_overlap(result):
    """The overlap judge with boilerplate kept -- ``(description, Evaluation, judged rows)`` -- to show what page
    furniture does (judged once, cached on ``result``); None when the overlap judge does not apply or keeps
    boilerplate already."""
    judge = result.judges.get("overlap")
    if judge is None or judge.boilerplate is None:
        return None
    if "raw_overlap" not in result._cache:
        raw = replace(judge, boilerplate=None)
        with_doc = result.run[result.run["doc_id"].notna()]
        judged = _judge_raw(with_doc, result.judged.get("overlap"), result.golden.gold_pages, raw, result.page_index)
        measures = result.pages["overlap"].measures  # the same measures as every other ruler
        result._cache["raw_overlap"] = (describe_judge(raw), evaluate_judged(result.golden, judged, measures,
                                                                             raw.params()), judged)
    return result._cache["raw_overlap"]


def _judge_raw(with_doc, ruled, gold_pages, raw, index):
    """The overlap judge with boilerplate kept (``raw``) on the rows ``with_doc``, given the same rows judged with
    boilerplate left out (``ruled``, or None). When the ruled judge kept its furniture-kept answers
    (``satisfies_kept``: :func:`~rag_metrics.judging.judges.judge_run` with ``kept=True``) they are the answer.
    Otherwise: keeping boilerplate only adds fragments, so every gold page the ruled judge credits the raw one
    credits too, and only the rows short of some gold page of their document are judged again
    (:func:`~rag_metrics.judging.judges.judge_run` on all of them gives the same)."""
    if ruled is None or len(ruled) != len(with_doc):
        return judge_run(with_doc, None, gold_pages, raw, index)
    if "satisfies_kept" in ruled.columns:
        out = judged_frame(with_doc)
        out["satisfies"] = ruled["satisfies_kept"].to_numpy(dtype=object)
        out["hit"] = [bool(x) for x in out["satisfies"]]
        return out
    per_doc = gold_pages.groupby(["question_id", "doc_id"])["page"].nunique().to_dict()
    short = np.fromiter((len(s) < per_doc.get((q, d), 0) for q, d, s in
                         zip(with_doc["question_id"], with_doc["doc_id"], ruled["satisfies"])), dtype=bool,
                        count=len(with_doc))
    satisfies = ruled["satisfies"].to_numpy(dtype=object).copy()
    if short.any():
        again = judge_run(with_doc[short], None, gold_pages, raw, index)
        satisfies[short] = again["satisfies"].to_numpy(dtype=object)
    out = judged_frame(with_doc)
    out["satisfies"] = list(satisfies)
    out["hit"] = [bool(x) for x in satisfies]
    return out


def _rulers(result) -> dict:
    """name -> (description, Evaluation, judged rows) for every ruler of ``result`` (page-level, then document/chunk)."""
    out = {name: (describe_judge(result.judges[name]), result.pages[name], result.judged[name]) for name in result.judges}
    raw = raw_overlap(result)
    if raw is not None:
        out[RAW_OVERLAP] = raw
    return out


def _means(ev, measures, questions) -> tuple[dict, int]:
    """``({measure: mean}, questions evaluated)`` of an evaluation, over ``questions`` only when given."""
    if questions is None:
        s = ev.summary_dict()
        return {m: s.get(m, {}).get("mean") for m in measures}, s["mrr"]["evaluated"]
    pq = ev.per_question[ev.per_question.index.isin(list(questions))]
    means = {m: float(pq[m].mean()) if m in pq and pq[m].notna().any() else None for m in measures}
    return means, int(pq["mrr"].notna().sum())


def ruler_table(result, questions=None) -> pd.DataFrame:
    """One row per ruler, one column per headline measure (``level``: what is counted -- gold pages at page level,
    where the ``document`` judge credits every gold page of an item's gold document, or gold documents / chunk IDs;
    ``judge`` describes the ruler; ``n`` questions); over ``questions`` only when given (two runs compared on the questions both logged)."""
    rows = {}
    for name, (describe, ev, _) in _rulers(result).items():
        means, n = _means(ev, result.headline_measures, questions)
        rows[name] = {"level": "page", "judge": describe, **means, "n": n}
    for label, ev, what in (("document level (gold documents)", result.document, "document IDs against gold_docs"),
                            ("chunk level (gold chunk IDs)", result.chunk, "chunk IDs against gold_chunks")):
        if ev is None:
            continue
        means, n = _means(ev, result.headline_measures, questions)
        rows[label] = {"level": label.split()[0], "judge": what, **means, "n": n}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "ruler"
    return table


def ruler_changes(previous, current, questions=None) -> pd.DataFrame:
    """``current - previous`` for every headline measure under every ruler both runs have: rows ``(ruler,
    measure)``, columns previous, current, change (means over each run's own questions, or over ``questions``)."""
    a, b = ruler_table(previous, questions), ruler_table(current, questions)
    measures = [m for m in current.headline_measures if m in a.columns]
    rows = []
    for ruler in [r for r in b.index if r in a.index]:
        for m in measures:
            before, after = a.at[ruler, m], b.at[ruler, m]
            change = None if before is None or after is None or pd.isna(before) or pd.isna(after) else after - before
            rows.append({"ruler": ruler, "measure": m, "previous": before, "current": after, "change": change})
    return pd.DataFrame(rows, columns=["ruler", "measure", "previous", "current", "change"]).set_index(
        ["ruler", "measure"])


def _shared(result, index, text, gold, doc, window, n, rule):
    """The longest text shared with a gold page (± window) of the item's document, and whether all shared text is
    boilerplate."""
    if index is None or not isinstance(text, str):
        return "", False
    rows = [index.row[d, q] for d, p in gold if d == doc for q in range(p - window, p + window + 1)
            if (d, q) in index.row]
    norm = normalize(text)
    spans = index.shared_spans(norm, rows, n, rule)
    if not spans:
        return "", False
    plain = [s for s in spans if not s[2]]
    a, b, _ = max(plain or spans, key=lambda s: s[1] - s[0])  # the evidence first; furniture only when alone
    return norm[a:b], not plain


def ruler_disagreements(result, a: str, b: str, k: int | None = None, *, limit: int | None = None) -> pd.DataFrame:
    """Top-``k`` items (default the largest k) that ruler ``a`` credits and ruler ``b`` does not, and the reverse.

    Columns: question_id, rank, doc_id, pages, credited_by, not_credited_by, shared_text (the longest fragment of
    at least F characters the item shares with a gold page ± window; empty if none), only_boilerplate (every
    shared fragment is boilerplate: a false hit of a ruler that keeps it). ``limit``: only the first that many
    items, by question and rank (the shared text costs a search per item; a report lists a stated number).
    """
    rulers = _rulers(result)
    for name in (a, b):
        check_choice(name, tuple(rulers), "ruler", func="ruler_disagreements")
    k = max(result.ks) if k is None else check_int(k, "k", func="ruler_disagreements")
    ja, jb = rulers[a][2], rulers[b][2]
    key = ["question_id", "rank"]
    both = ja[ja["rank"] <= k][key + ["doc_id", "pages", "text", "hit"]].merge(
        jb[jb["rank"] <= k][key + ["hit"]], on=key, suffixes=("_a", "_b"))
    differ = both[both["hit_a"] != both["hit_b"]].sort_values(key, kind="stable")
    if limit is not None:
        differ = differ.head(limit)
    judge = result.judges.get("overlap")
    n = getattr(judge, "min_chars", 24)
    window = max((getattr(j, "window", 0) for j in result.judges.values()), default=1)
    rule = judge.boilerplate if judge is not None else DEFAULT_BOILERPLATE
    index = result.page_index
    gold = result.golden.pages_by_question()
    rows = []
    for row in differ.itertuples(index=False):
        text, furniture = _shared(result, index, row.text, gold.get(row.question_id, []), row.doc_id, window, n,
                                  rule)
        rows.append({"question_id": row.question_id, "rank": int(row.rank), "doc_id": row.doc_id,
                     "pages": tuple(row.pages), "credited_by": a if row.hit_a else b,
                     "not_credited_by": b if row.hit_a else a, "shared_text": text, "only_boilerplate": furniture})
    return pd.DataFrame(rows, columns=["question_id", "rank", "doc_id", "pages", "credited_by", "not_credited_by",
                                       "shared_text", "only_boilerplate"])


def unfindable_gold(result) -> pd.DataFrame:
    """Gold pages whose text is empty (a scanned page without a text layer): no text judge (overlap, marker) can
    find them, so their questions are misses by construction under those judges. Columns: question_id, doc_id,
    page."""
    index = result.page_index
    gp = result.golden.gold_pages
    if index is None or not len(gp):
        return pd.DataFrame(columns=["question_id", "doc_id", "page"])
    empty = set(index.empty)
    mask = [(d, int(p)) in empty for d, p in zip(gp["doc_id"], gp["page"])]
    return gp.loc[mask, ["question_id", "doc_id", "page"]].reset_index(drop=True)


def with_running_text(corpus, *, footer: str | None = "{title} {page}", header: str | None = None):
    """The corpus with page furniture: ``header`` as the first line and ``footer`` as the last line of every page
    (templates with ``{title}``, ``{page}``, ``{pages}``: the document's title, the page number, its page count),
    as a PDF reader extracts a page drawn with a running header and footer. Page markers ``[p.N]`` stay where they
    are (after the header). Returns a new :class:`~rag_metrics.io.corpus.Corpus`; nothing else changes."""
    from rag_metrics.io.corpus import corpus_from_pages

    pages = []
    for row in corpus.pages.itertuples(index=False):
        fields = {"title": corpus.documents.at[row.doc_id, "title"], "page": row.page,
                  "pages": int(corpus.documents.at[row.doc_id, "n_pages"])}
        text = row.text.rstrip("\n")
        if header:
            text = header.format(**fields) + "\n" + text
        if footer:
            text = text + "\n" + footer.format(**fields)
        pages.append({"doc_id": row.doc_id, "page": row.page, "text": text + "\n", "title": row.title,
                      "genre": row.genre, "language": row.language})
    return corpus_from_pages(pages, source=corpus.source)


def pages_as_chunks(corpus) -> pd.DataFrame:
    """One chunk per page (the chunk table of :func:`rag_metrics.retrieval.chunking.chunk_fixed`: chunk_id, doc_id,
    start, end, start_page, end_page, text, prefix), as a PDF loader that makes one document per page does."""
    from rag_metrics.retrieval.chunking import CHUNK_COLUMNS

    rows = [{"chunk_id": f"{r.doc_id}#page#{int(r.page):04d}", "doc_id": r.doc_id, "start": int(r.start),
             "end": int(r.end), "start_page": int(r.page), "end_page": int(r.page), "text": r.text, "prefix": ""}
            for r in corpus.pages.itertuples(index=False)]
    return pd.DataFrame(rows, columns=CHUNK_COLUMNS)
