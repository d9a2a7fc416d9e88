"""The chunking grid: every chunk size and overlap evaluated at every k, with the context each hands the LLM.

:func:`chunking_grid` asks :func:`rag_metrics.retrieval.retrievers.search_configuration` for each configuration's
chunks and run, and evaluates them at document level; :func:`context_cost` counts the characters and tokens of the
top ``k`` chunks per question; :func:`gold_misses` says which gold documents a run misses at ``k`` and why
(another language, or more gold documents than ``k`` can hold).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pandas as pd

from rag_metrics.core.errors import check_k
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.retrieval.chunking import indexed_text
from rag_metrics.retrieval.retrievers import search_configuration
from rag_metrics.core.text import CJK_CHAR, token_spans

__all__ = ["context_cost", "chunking_grid", "GridResult", "gold_misses", "GoldMisses", "question_language"]


def context_cost(run: pd.DataFrame, chunks: pd.DataFrame, k: int) -> pd.DataFrame:
    """What the LLM is handed per question at cutoff ``k``: the top-``k`` chunks' characters and tokens.

    Counts the indexed text (prefix included), since that is what a RAG prompt receives.
    Returns one row per question: ``question_id, context_chars, context_tokens``.
    """
    full = pd.Series(indexed_text(chunks), index=chunks["chunk_id"])
    top = run[run["rank"] <= k]
    lengths = top["chunk_id"].map(full.str.len())
    tokens = top["chunk_id"].map(full.map(lambda t: len(token_spans(t))))
    out = pd.DataFrame({"question_id": top["question_id"], "context_chars": lengths, "context_tokens": tokens})
    return out.groupby("question_id", sort=False)[["context_chars", "context_tokens"]].sum().reset_index()


@dataclass(frozen=True)
class GridResult:
    """``summary``: one row per (configuration, k); ``by_type``: the same per question type;
    ``per_question``: document-level values per (configuration, k, question)."""

    summary: pd.DataFrame
    by_type: pd.DataFrame
    per_question: pd.DataFrame


def _progress(iterable, total, enabled, desc):
    if not enabled:
        return iterable
    from tqdm import tqdm

    # No rates or times in the bar: its text is the same on every run.
    return tqdm(iterable, total=total, desc=desc, file=sys.stderr, mininterval=0, miniters=1,
                bar_format="{desc}: {n_fmt}/{total_fmt} |{bar:20}|")


def chunking_grid(corpus, golden, *, sizes, overlaps, ks, retriever="bm25", unit="char",
                  heading=False, progress=False) -> GridResult:
    """Evaluate every (size, overlap) configuration at every k, at document level (cut_then_dedup).

    For each configuration: chunk the corpus, index it with ``retriever``, search the
    labelled questions for ``max(ks)`` chunks, and evaluate recall@k, hit@k, mrr and
    ndcg@k against the gold documents, plus the mean context cost at k. Overlaps not
    smaller than the size are skipped. ``heading=True`` adds the heading chunker (with
    context prefix) as one more configuration (size = its max_chars, overlap = None).
    """
    configs = [(s, o) for s in sizes for o in overlaps if o < s]
    if heading:
        configs.append(("heading", None))
    questions = golden.labelled.reset_index()
    kmax = max(ks)
    measures = [m for k in ks for m in (f"recall@{k}", f"hit@{k}", f"ndcg@{k}")] + ["mrr"]
    rows, type_rows, pq = [], [], []
    for size, overlap in _progress(configs, len(configs), progress, f"grid ({retriever})"):
        chunks, run = search_configuration(corpus, questions, kmax, retriever=retriever, size=size, overlap=overlap,
                                           unit=unit, heading=size == "heading")  # chunked and searched in retrieval/
        result = evaluate(golden.gold, run, measures)
        base = {"size": size, "overlap": overlap, "n_chunks": len(chunks)}
        answerable = result.per_question[result.per_question["n_relevant"] > 0]
        for k in ks:
            cost = context_cost(run, chunks, k).set_index("question_id").reindex(answerable.index).fillna(0)
            values = {"k": k, "recall": result.summary.at[f"recall@{k}", "mean"], "hit": result.summary.at[f"hit@{k}", "mean"],
                      "mrr": result.summary.at["mrr", "mean"], "ndcg": result.summary.at[f"ndcg@{k}", "mean"],
                      "evaluated": int(result.summary.at[f"recall@{k}", "evaluated"]),
                      "context_chars": cost["context_chars"].mean(), "context_tokens": cost["context_tokens"].mean()}
            rows.append({**base, **values})
            for typ, group in result.by("type").groupby(level="type"):
                g = group.droplevel("type")
                if g.at[f"recall@{k}", "evaluated"]:
                    type_rows.append({**base, "k": k, "type": typ, "recall": g.at[f"recall@{k}", "mean"],
                                      "hit": g.at[f"hit@{k}", "mean"], "evaluated": int(g.at[f"recall@{k}", "evaluated"])})
            pq.append(answerable[[f"recall@{k}", f"hit@{k}", "mrr", "type"]].rename(
                columns={f"recall@{k}": "recall", f"hit@{k}": "hit"}).assign(**base, k=k).reset_index())
    return GridResult(pd.DataFrame(rows), pd.DataFrame(type_rows), pd.concat(pq, ignore_index=True))


def question_language(text: str) -> str:
    """``"ja"`` for a question with any kana or kanji, else ``"en"`` (the sample corpus's two languages)."""
    return "ja" if CJK_CHAR.search(str(text)) else "en"


@dataclass(frozen=True)
class GoldMisses:
    """The gold documents a run misses at cutoff ``k`` (document level, ``cut_then_dedup``), and why.

    ``table``: one row per missed (question, gold document): question_id, doc_id, relevance, question_lang,
    doc_lang, cross_language (the document is in the other language than its question), n_gold (the question's gold
    documents). The counts:

    * ``gold``: gold documents of the answerable questions; ``missed``: those not in the top ``k`` chunks;
    * ``cross_language``: missed documents in the other language than their question;
    * ``cannot_fit``: sum over questions of ``max(0, n_gold - k)`` -- the top ``k`` chunks hold at most ``k``
      documents, so a question with more gold documents than ``k`` misses that many whatever the retriever or chunker;
    * ``avoidable``: ``missed - cannot_fit``, the misses a perfect ranking at this ``k`` would not have;
    * ``avoidable_cross_language``: a lower bound on the avoidable misses that are cross-language -- per question,
      its cross-language misses minus its ``cannot_fit`` (as if every unavoidable miss were a cross-language one).
    """

    table: pd.DataFrame
    k: int
    gold: int
    missed: int
    cross_language: int
    cannot_fit: int
    avoidable_cross_language: int

    @property
    def avoidable(self) -> int:
        return self.missed - self.cannot_fit


def gold_misses(golden, run: pd.DataFrame, k: int, corpus) -> GoldMisses:
    """Which gold documents of the answerable questions are not among the top ``k`` chunks of ``run`` (a result table
    with question_id, rank, doc_id), with the language of each and what no ranking at ``k`` could reach
    (:class:`GoldMisses`). Question languages come from :func:`question_language`, document languages from
    ``corpus.documents``."""
    k = check_k(k, func="gold_misses")
    gold = golden.gold.dropna(subset=["doc_id"])
    top = run[run["rank"] <= k].groupby("question_id")["doc_id"].agg(set)
    found = [d in top.get(q, set()) for q, d in zip(gold["question_id"], gold["doc_id"])]
    n_gold = gold.groupby("question_id")["doc_id"].nunique()
    missed = gold[[not f for f in found]][["question_id", "doc_id", "relevance"]].reset_index(drop=True)
    languages = golden.questions["question"].map(question_language)
    missed["question_lang"] = missed["question_id"].map(languages)
    missed["doc_lang"] = missed["doc_id"].map(corpus.documents["language"])
    missed["cross_language"] = missed["question_lang"] != missed["doc_lang"]
    missed["n_gold"] = missed["question_id"].map(n_gold).astype(int)
    cannot = (n_gold - k).clip(lower=0)
    cross_per_q = missed.groupby("question_id")["cross_language"].sum()
    bound = (cross_per_q - cannot.reindex(cross_per_q.index).fillna(0)).clip(lower=0)
    return GoldMisses(missed, k, int(len(gold)), int(len(missed)), int(missed["cross_language"].sum()),
                      int(cannot.sum()), int(bound.sum()))
