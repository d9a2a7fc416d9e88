"""Page-level measures: plug a judge (:mod:`rag_metrics.judging`) into the measures of :func:`rag_metrics.evaluate`.

* Recall@k = share of the question's gold pages satisfied by at least one top-k chunk (a
  chunk crossing two gold pages satisfies both).
* Sufficiency@k = 1 when every evidence group of the question (``gold_groups``; without them one
  group of all its gold pages) has a page satisfied by a top-k chunk.
* The other measures rank chunks: a chunk is relevant when it satisfies a gold page that no
  higher-ranked chunk satisfied (counted once, as at document level), so hit@k, MRR,
  precision@k, nDCG@k (binary gain) and AP keep their definitions, with R = number of gold pages.

Across judges: hit@k, Recall@k and MRR under the marker or the overlap judge never exceed their
value under the document judge (both need the document to match). Between the marker and the
overlap judge there is no order: each can count a chunk the other misses (a chunk that lost its
marker, or a marker in a chunk sharing fewer than F characters with the page). Precision, nDCG and
AP count chunks that satisfy a *new* gold page, so they are not monotone in any judge.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.io.judgments import Qrels
from rag_metrics.io.rankings import Run, run_frame
from rag_metrics.judging.judges import as_judge, judge_run
from rag_metrics.measures.evaluator import Evaluator
from rag_metrics.measures.registry import DEFAULT_MEASURES, parse_measures
from rag_metrics.measures.evaluation import Evaluation

__all__ = ["evaluate_pages", "evaluate_judged", "judged_items"]


def evaluate_pages(golden, run: pd.DataFrame, measures=None, *, judge=None, corpus=None,
                   chunks: pd.DataFrame | None = None) -> Evaluation:
    """Page-level :class:`~rag_metrics.Evaluation` of ``run`` under ``judge`` (definitions in the module docstring).

    ``golden`` is a :class:`~rag_metrics.io.golden.GoldenSet`; questions without gold pages
    (no_answer) are evaluated and excluded where undefined, as at document level. The
    judge's parameters are in ``settings``. ``run`` (a table, or a :class:`~rag_metrics.io.logs.RunLog`: its run
    table) carries its texts (a logged run) or ``chunks``
    holds them (a run of the built-in retrievers); ``corpus`` is the documents (or a page index).

    ``judge``: a judge object or its name (``"overlap"``, ``"marker"``, ``"page"``, ``"document"``, with its default
    parameters: :func:`~rag_metrics.judging.judges.as_judge`).

    ``golden``, ``run``, ``measures`` sit where every ``evaluate*`` has them:
    ``evaluate_pages(golden, run, ["hit@3", "mrr"], judge="overlap", corpus=corpus, chunks=chunks)``. A retrieval
    log is evaluated whole -- every judge, every level, drill-downs -- by :func:`rag_metrics.evaluate_log`, which
    judges and evaluates with these same functions.
    """
    if judge is None:
        raise InputError("evaluate_pages: give the judge: judge='overlap' (or 'marker', 'page', 'document'), or a "
                         "judge object such as OverlapJudge(min_chars=24).")
    judge = as_judge(judge, func="evaluate_pages")
    run = run_frame(run, func="evaluate_pages")
    judged = judge_run(run, chunks, golden.gold_pages, judge, corpus)
    return evaluate_judged(golden, judged, measures, judge.params())


def evaluate_judged(golden, judged: pd.DataFrame, measures=None, judge_params: dict | None = None) -> Evaluation:
    """Page-level measures of a run already judged (:func:`~rag_metrics.judging.judges.judge_run`)."""
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    judged = judged_items(judged)
    gp = golden.gold_pages
    page_gold = pd.DataFrame({"question_id": gp["question_id"], "chunk_id": gp["doc_id"] + "#p" + gp["page"].astype(str)})
    attrs = golden.gold.drop_duplicates("question_id")[["question_id", "type"]]
    answerable = set(page_gold["question_id"])
    no_gold = attrs[~attrs["question_id"].isin(answerable)].assign(chunk_id=None)
    gold_table = pd.concat([page_gold.merge(attrs, on="question_id"), no_gold], ignore_index=True)
    ev = Evaluator(Qrels.from_df(gold_table, level="chunk"), measures, level="chunk").evaluate_table(
        Run.from_df(judged[["question_id", "rank", "item"]].rename(columns={"item": "chunk_id"})))
    per_question = ev.per_question.copy()
    # Recall@k counts every gold page a top-k chunk satisfies, even two by one chunk.
    for m in measures:
        if m.name == "recall":
            top = judged[judged["rank"] <= m.k]
            pages_of: dict = {}
            for q, pages in zip(top["question_id"], top["satisfies"]):
                if pages:
                    pages_of.setdefault(q, set()).update(pages)
            union = pd.Series({q: len(v) for q, v in pages_of.items()}, dtype=float)
            n_pages = per_question["n_relevant"]
            per_question[str(m)] = np.where(n_pages > 0, union.reindex(per_question.index).fillna(0)
                                            / n_pages.where(n_pages > 0, 1), np.nan)
        elif m.name == "sufficiency":
            per_question[str(m)] = _sufficiency(golden, judged, m.k, per_question.index)
    settings = {**ev.settings, "level": "page", **(judge_params or {})}
    return Evaluation.from_frame(per_question, measures, unknown_questions=ev.unknown_questions, settings=settings)


def judged_items(judged: pd.DataFrame) -> pd.DataFrame:
    """The judged rows (question_id, rank, satisfies) in rank order, each with its ``item``: the first gold page it
    satisfies that no higher-ranked row satisfied, as ``<doc_id>#p<page>`` (what the page-level measures count), or
    ``~#<rank>`` when it satisfies none that is new. The gold pages' IDs are written alike
    (:func:`rag_metrics.measures.export.trec_qrels` at ``level="page"``)."""
    judged = judged[["question_id", "rank", "satisfies"]].sort_values(["question_id", "rank"], kind="stable")
    items = []
    covered: dict = {}
    for q, pages, r in zip(judged["question_id"].tolist(), judged["satisfies"].tolist(), judged["rank"].tolist()):
        if not pages:  # most rows: nothing to cover
            items.append(f"~#{r}")
            continue
        seen = covered.setdefault(q, set())
        new = sorted(pages - seen)
        seen |= pages
        items.append(f"{new[0][0]}#p{new[0][1]}" if new else f"~#{r}")
    return judged.assign(item=items)


def _sufficiency(golden, judged: pd.DataFrame, k: int, questions) -> np.ndarray:
    """Per question: 1.0 when each evidence group has a page satisfied in the top ``k``; NaN without gold pages."""
    groups = golden.groups()
    top = judged[judged["rank"] <= k]
    satisfied = top.groupby("question_id")["satisfies"].agg(lambda s: frozenset().union(*s)).to_dict()
    out = np.full(len(questions), np.nan)
    for i, q in enumerate(questions):
        if q in groups:
            pages = satisfied.get(q, frozenset())
            out[i] = float(all(g & pages for g in groups[q]))
    return out
