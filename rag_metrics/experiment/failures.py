"""Where the misses come from: the failure breakdown per question, and the upper bounds of oracle filters.

:func:`failure_breakdown` sorts every question missed at k (no judged hit in the top k),
checked in this order: ``not_retrieved`` (no gold document in the top k),
``other_document_first`` (a gold document is in the top k but another document is ranked
first), ``wrong_page`` (a gold document is ranked first, but no chunk satisfies a gold page).
A question written with evidence groups (``gold_groups``) that has a judged hit but not every
group satisfied in the top k is listed too, as ``group_missing`` (:data:`GROUP_MISSING`): the
evidence is incomplete, not absent. For a golden set with groups, three more columns: ``groups`` and
``groups_missing`` count a question's groups (a question without groups has one) and those with no satisfied page;
``missing`` names the pages of the missing groups.

:func:`upper_bounds` runs a retriever with no filter, restricted to the gold genre and to the
gold document (oracle filters, :mod:`rag_metrics.retrieval.retrievers`): the ceiling of an idea
such as "route each question to the right genre", measured before building it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.judging.judges import judge_run
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.measures.page_level import evaluate_pages

__all__ = ["failure_breakdown", "failure_breakdown_judged", "upper_bounds", "FAILURE_KINDS", "GROUP_MISSING"]

FAILURE_KINDS = ("not_retrieved", "other_document_first", "wrong_page")
GROUP_MISSING = "group_missing"
"""The kind of a question with evidence groups that has a hit at k but not every group satisfied."""
_COLUMNS = ["question_id", "type", "failure", "first_document", "gold_documents"]
_GROUP_COLUMNS = ["groups", "groups_missing", "missing"]


def failure_breakdown(golden, run: pd.DataFrame, chunks: pd.DataFrame | None, judge, corpus, k: int) -> pd.DataFrame:
    """One row per answerable question with no judged hit in the top ``k``: its failure kind (module docstring)."""
    return failure_breakdown_judged(golden, judge_run(run[run["rank"] <= k], chunks, golden.gold_pages, judge, corpus), k)


def failure_breakdown_judged(golden, judged: pd.DataFrame, k: int) -> pd.DataFrame:
    """:func:`failure_breakdown` of a run already judged (:func:`~rag_metrics.judging.judges.judge_run`).

    Only questions without a hit in the top ``k``, or written with evidence groups, can fail: the others are passed
    over without looking at their rows one by one."""
    top_k = judged[judged["rank"] <= k].sort_values(["question_id", "rank"], kind="stable")
    gold_pages = golden.gold_pages
    gold_docs = gold_pages.groupby("question_id")["doc_id"].agg(set)
    with_groups = bool(getattr(golden, "has_groups", False))
    groups = golden.groups() if with_groups else {}  # without groups: one group of all its gold pages
    hit = top_k.groupby("question_id", sort=False)["hit"].any()
    hit = set(hit.index[hit.to_numpy(dtype=bool)])
    todo = [q for q in gold_docs.index if q not in hit or q in groups]
    chosen = top_k[top_k["question_id"].isin(todo)]
    rows_of = chosen.groupby("question_id", sort=False).indices  # positions, in rank order
    sat, doc = chosen["satisfies"].to_numpy(dtype=object), chosen["doc_id"].to_numpy(dtype=object)
    pages_of = golden.pages_by_question() if hasattr(golden, "pages_by_question") else \
        {q: list(zip(g["doc_id"], g["page"])) for q, g in gold_pages.groupby("question_id", sort=False)}
    none = np.zeros(0, dtype=np.int64)
    types = golden.questions["type"]
    rows = []
    for q in todo:
        docs = gold_docs[q]
        at = rows_of.get(q, none)
        own = groups.get(q) or [frozenset(pages_of[q])]
        satisfied = frozenset().union(*sat[at]) if len(at) else frozenset()
        missing = [g for g in own if not g & satisfied]
        top_docs = doc[at].tolist()
        if q in hit:
            if not missing:
                continue
            kind = GROUP_MISSING
        elif not any(d in docs for d in top_docs):
            kind = "not_retrieved"
        elif top_docs[0] not in docs:
            kind = "other_document_first"
        else:
            kind = "wrong_page"
        rows.append({"question_id": q, "type": types.get(q, ""), "failure": kind,
                     "first_document": top_docs[0] if top_docs else None,
                     "gold_documents": ", ".join(sorted(docs)), "groups": len(own), "groups_missing": len(missing),
                     "missing": "; ".join(" or ".join(f"{d} p.{p}" for d, p in sorted(g)) for g in missing)})
    return pd.DataFrame(rows, columns=_COLUMNS + _GROUP_COLUMNS)[_COLUMNS + (_GROUP_COLUMNS if with_groups else [])]


def upper_bounds(golden, corpus, chunks, retriever, *, judge=None, ks=(1, 3, 5)) -> pd.DataFrame:
    """hit@k and MRR with no filter, restricted to the gold genre (upper bound) and to the gold document (upper bound).

    ``retriever`` is a built retriever over ``chunks``; its three searches are run in retrieval/
    (:func:`~rag_metrics.retrieval.retrievers.oracle_runs`). With ``judge`` the evaluation is at
    page level (:func:`evaluate_pages`), else at document level.
    """
    from rag_metrics.retrieval.retrievers import oracle_runs

    measures = [f"hit@{k}" for k in ks] + ["mrr"]
    rows = {}
    for label, run in oracle_runs(retriever, golden, corpus, max(max(ks), 10)).items():  # searched in retrieval/
        ev = (evaluate_pages(golden, run, measures, judge=judge, corpus=corpus, chunks=chunks) if judge is not None
              else evaluate(golden.gold, run, measures))
        rows[label] = ev.summary["mean"]
    table = pd.DataFrame(rows).T
    table.index.name = "condition"
    table.attrs["settings"] = {"level": "page" if judge is not None else "document",
                               **(judge.params() if judge is not None else {})}
    return table[measures]
