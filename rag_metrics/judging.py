"""Page-level judging: does a retrieved chunk satisfy a golden (document, page) label?

Three judges, each a small frozen dataclass with a ``judge(chunks, gold_pages)`` method:

* :class:`DocumentJudge` -- the chunk's document is a gold document (pages ignored).
* :class:`MarkerJudge(window=1)` -- the document matches and the chunk's text contains the
  OCR marker ``[p.N]`` of a gold page ``p`` with ``|N - p| <= window``. A chunk that starts
  mid-page carries that page's text but not its marker: this judge under-counts.
* :class:`OverlapJudge(min_chars=24, window=1)` -- the document matches and some fragment
  of at least ``min_chars`` (F) characters of the chunk occurs in the text of a gold page
  ``p +- window``, both sides normalized alike (NFKC, page markers removed, whitespace
  collapsed). Characters, not words, so it works for Japanese. A fragment of >= F
  characters is shared exactly when an F-character substring is, so each page is indexed
  as the set of its F-character substrings and a chunk is judged by a set intersection
  (hashing; no scan per chunk-page pair). A chunk shorter than F (after normalization)
  never satisfies this judge.

:func:`evaluate_pages` plugs a judge into the measures of :func:`rag_metrics.evaluate`:

* Recall@k = share of the question's gold pages satisfied by at least one top-k chunk (a
  chunk crossing two gold pages satisfies both).
* The other measures rank chunks: a chunk is relevant when it satisfies a gold page that no
  higher-ranked chunk satisfied (counted once, as at document level), so hit@k, MRR,
  precision@k, nDCG@k (binary gain) and AP keep their definitions, with R = number of gold pages.
  (With the document judge the first chunk of a gold document satisfies all its gold pages at
  once, so later chunks of it add nothing to these three; hit@k, Recall@k and MRR can only
  drop from the document judge to the overlap judge to the marker judge.)

:func:`failure_breakdown` sorts every question missed at k (no judged hit in the top k),
checked in this order: ``not_retrieved`` (no gold document in the top k),
``other_document_first`` (a gold document is in the top k but another document is ranked
first), ``wrong_page`` (a gold document is ranked first, but no chunk satisfies a gold page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import check_int
from .evaluation import Evaluation, evaluate, summarize
from .measures import DEFAULT_MEASURES, parse_measures
from .text import normalize

__all__ = ["DocumentJudge", "MarkerJudge", "OverlapJudge", "judge_run", "evaluate_pages", "failure_breakdown",
           "FAILURE_KINDS", "upper_bounds"]

FAILURE_KINDS = ("not_retrieved", "other_document_first", "wrong_page")
_MARKER = re.compile(r"\[p\.(\d+)\]")


@dataclass(frozen=True)
class DocumentJudge:
    """The chunk's document is a gold document."""

    name: str = "document"

    def params(self) -> dict:
        return {"judge": self.name}

    def satisfied(self, chunk: dict, gold: list[tuple[str, int]], corpus) -> set:
        return {(d, p) for d, p in gold if d == chunk["doc_id"]}


@dataclass(frozen=True)
class MarkerJudge:
    """The document matches and the chunk contains ``[p.N]`` for a gold page within ``window``."""

    window: int = 1
    name: str = "marker"

    def __post_init__(self):
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "window": self.window}

    def satisfied(self, chunk, gold, corpus) -> set:
        markers = {int(n) for n in _MARKER.findall(chunk["text"])}
        return {(d, p) for d, p in gold if d == chunk["doc_id"] and any(abs(m - p) <= self.window for m in markers)}


@dataclass(frozen=True)
class OverlapJudge:
    """The document matches and an F-character fragment of the chunk occurs on a gold page +- window."""

    min_chars: int = 24
    window: int = 1
    name: str = "overlap"

    def __post_init__(self):
        check_int(self.min_chars, "min_chars")
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "min_chars": self.min_chars, "window": self.window}

    def _grams(self, text: str) -> set:
        f = self.min_chars
        return {text[i : i + f] for i in range(len(text) - f + 1)}

    def page_index(self, corpus) -> dict:
        """``{(doc_id, page): set of F-character substrings of the normalized page}``."""
        cache = corpus.__dict__.setdefault("_overlap_index", {})
        if self.min_chars not in cache:
            cache[self.min_chars] = {(d, p): self._grams(normalize(t))
                                     for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
        return cache[self.min_chars]

    def satisfied(self, chunk, gold, corpus) -> set:
        index = self.page_index(corpus)
        grams = None
        out = set()
        for d, p in gold:
            if d != chunk["doc_id"]:
                continue
            if grams is None:
                grams = self._grams(normalize(chunk["text"]))
                if not grams:
                    return set()
            pages = (index.get((d, q), set()) for q in range(p - self.window, p + self.window + 1))
            if any(not grams.isdisjoint(page) for page in pages):
                out.add((d, p))
        return out


def judge_run(run: pd.DataFrame, chunks: pd.DataFrame, gold_pages: pd.DataFrame, judge, corpus) -> pd.DataFrame:
    """Add to each result row the set of gold pages it satisfies (``satisfies``) and ``hit`` (non-empty)."""
    text = chunks.set_index("chunk_id")["text"]
    missing = sorted(set(run["chunk_id"]) - set(text.index))
    if missing:
        raise KeyError(f"judge_run: chunk {missing[0]!r} of the run is not in the chunk table.")
    gold = {q: list(zip(g["doc_id"], g["page"])) for q, g in gold_pages.groupby("question_id")}
    satisfies = [
        frozenset(judge.satisfied({"doc_id": d, "text": text[c]}, gold.get(q, []), corpus))
        for q, c, d in zip(run["question_id"], run["chunk_id"], run["doc_id"])
    ]
    out = run.copy()
    out["satisfies"] = satisfies
    out["hit"] = [bool(s) for s in satisfies]
    return out


def evaluate_pages(golden, run: pd.DataFrame, chunks: pd.DataFrame, judge, corpus, measures=None) -> Evaluation:
    """Page-level :class:`~rag_metrics.Evaluation` of ``run`` under ``judge`` (definitions in the module docstring).

    ``golden`` is a :class:`~rag_metrics.corpus.GoldenSet`; questions without gold pages
    (no_answer) are evaluated and excluded where undefined, as at document level. The
    judge's parameters are in ``settings``.
    """
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    judged = judge_run(run, chunks, golden.gold_pages, judge, corpus).sort_values(["question_id", "rank"], kind="stable")
    # Item of each row: the first gold page it satisfies that no higher-ranked row satisfied.
    items = []
    covered: dict = {}
    for q, pages, c, r in zip(judged["question_id"], judged["satisfies"], judged["chunk_id"], judged["rank"]):
        seen = covered.setdefault(q, set())
        new = sorted(pages - seen)
        seen |= pages
        items.append(f"{new[0][0]}#p{new[0][1]}" if new else f"~{c}#{r}")
    judged["item"] = items
    gp = golden.gold_pages
    page_gold = pd.DataFrame({"question_id": gp["question_id"], "chunk_id": gp["doc_id"] + "#p" + gp["page"].astype(str)})
    attrs = golden.gold.drop_duplicates("question_id")[["question_id", "type"]]
    answerable = set(page_gold["question_id"])
    no_gold = attrs[~attrs["question_id"].isin(answerable)].assign(chunk_id=None)
    gold_table = pd.concat([page_gold.merge(attrs, on="question_id"), no_gold], ignore_index=True)
    ev = evaluate(gold_table, judged[["question_id", "rank", "item"]].rename(columns={"item": "chunk_id"}),
                  measures, level="chunk")
    per_question = ev.per_question.copy()
    # Recall@k counts every gold page a top-k chunk satisfies, even two by one chunk.
    for m in measures:
        if m.name == "recall":
            top = judged[judged["rank"] <= m.k]
            union = top.groupby("question_id")["satisfies"].agg(lambda s: len(frozenset().union(*s)))
            n_pages = per_question["n_relevant"]
            per_question[str(m)] = np.where(n_pages > 0, union.reindex(per_question.index).fillna(0) / n_pages.where(n_pages > 0, 1), np.nan)
    names = [str(m) for m in measures]
    settings = {**ev.settings, "level": "page", **judge.params()}
    return Evaluation(per_question, summarize(per_question, names), ev.unknown_questions, settings)


def failure_breakdown(golden, run: pd.DataFrame, chunks: pd.DataFrame, judge, corpus, k: int) -> pd.DataFrame:
    """One row per answerable question with no judged hit in the top ``k``: its failure kind (module docstring)."""
    judged = judge_run(run[run["rank"] <= k], chunks, golden.gold_pages, judge, corpus)
    gold_docs = golden.gold_pages.groupby("question_id")["doc_id"].agg(set)
    types = golden.questions["type"]
    rows = []
    for q, docs in gold_docs.items():
        top = judged[judged["question_id"] == q].sort_values("rank")
        if top["hit"].any():
            continue
        in_top = top["doc_id"].isin(docs)
        if not in_top.any():
            kind = "not_retrieved"
        elif top["doc_id"].iloc[0] not in docs:
            kind = "other_document_first"
        else:
            kind = "wrong_page"
        rows.append({"question_id": q, "type": types.get(q, ""), "failure": kind,
                     "first_document": top["doc_id"].iloc[0] if len(top) else None,
                     "gold_documents": ", ".join(sorted(docs))})
    return pd.DataFrame(rows, columns=["question_id", "type", "failure", "first_document", "gold_documents"])


def upper_bounds(golden, corpus, chunks, retriever, *, judge=None, ks=(1, 3, 5)) -> pd.DataFrame:
    """hit@k and MRR with no filter, restricted to the gold genre (upper bound) and to the gold document (upper bound).

    ``retriever`` is a built retriever over ``chunks``. With ``judge`` the evaluation is at
    page level (:func:`evaluate_pages`), else at document level.
    """
    from .retrieval import oracle_gold_documents, oracle_gold_genre

    questions = golden.labelled.reset_index()
    measures = [f"hit@{k}" for k in ks] + ["mrr"]
    conditions = {
        "no filter": None,
        "gold genre only (upper bound)": oracle_gold_genre(golden, corpus),
        "gold document only (upper bound)": oracle_gold_documents(golden),
    }
    rows = {}
    for label, allowed in conditions.items():
        run = retriever.search(questions, max(max(ks), 10), allowed=allowed)
        ev = (evaluate_pages(golden, run, chunks, judge, corpus, measures) if judge is not None
              else evaluate(golden.gold, run, measures))
        rows[label] = ev.summary["mean"]
    table = pd.DataFrame(rows).T
    table.index.name = "condition"
    table.attrs["settings"] = {"level": "page" if judge is not None else "document",
                               **(judge.params() if judge is not None else {})}
    return table[measures]


