"""Runs and judgments as TREC text that trec_eval, pytrec_eval and ranx read back to the numbers this package gives.

A TREC run lists each document once per question and ranks it by score (trec_eval: score descending, ties by
document ID descending; the rank column is ignored). Numbering a run's distinct documents 1, 2, ... therefore writes
the **dedup-then-cut** ranking, whatever order the evaluation used -- the silent switch from the default
cut-then-dedup that moved nDCG@10 from 0.8799 to 0.8833 on export (issue 48). :func:`trec_run` writes the order it
is asked for and says which in the run tag:

* ``order="cut_then_dedup"`` (the default, :mod:`rag_metrics.measures.collapse`): a document's rank is the position
  of its first chunk. Each later chunk of an already listed document keeps its position as a placeholder ID
  ``<doc_id>#dup@<position>`` that no qrels line judges, so the documents sit at the positions the evaluation reads:
  hit@k, Recall@k, P@k, MRR, nDCG, AP read back the same. Counts of retrieved items (``num_ret``) and measures of
  unjudged items (bpref, judged@k) see the placeholders;
* ``order="dedup_then_cut"``: each document once, ranks 1, 2, ...;
* ``level="chunk"``: the chunk IDs as they are (one per position; a chunk listed twice is an error, as at chunk
  level);
* ``level="page"``: rows judged by a page judge (:func:`rag_metrics.judging.judges.judge_run`), each written as the
  gold page it newly satisfies (``<doc_id>#p<page>``, :func:`rag_metrics.measures.page_level.judged_items`) or as a
  placeholder, against :func:`trec_qrels` of the gold pages: hit@k, MRR, nDCG, P@k and AP read back the same;
  Recall@k too unless one chunk satisfies two gold pages (the package counts both, a TREC run one).

Scores are written as ``n - position + 1`` (strictly decreasing), so every reader ranks by position whatever it does
with ties; ranks are the positions. The tag (sixth column) is ``<name>.<level>.<order>``.
"""

from __future__ import annotations

import math

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_order
from rag_metrics.io.judgments import Qrels
from rag_metrics.io.rankings import run_frame

__all__ = ["trec_run", "trec_qrels", "EXPORT_LEVELS", "DUPLICATE"]

EXPORT_LEVELS = ("document", "chunk", "page")
DUPLICATE = "{doc_id}#dup@{position}"
"""The placeholder of a chunk whose document is already listed (cut-then-dedup) or of a page-level item that
satisfies no new gold page."""


def _positions(run: pd.DataFrame, column: str):
    """``(question, position, id)`` in rank order, positions 1.. per question (the measures read positions)."""
    if column not in run.columns:
        raise InputError(f"trec_run: the run has no {column!r} column to write.", field=column)
    ordered = run.sort_values(["question_id", "rank"], kind="stable")
    position: dict = {}
    for q, item in zip(ordered["question_id"], ordered[column]):
        position[q] = position.get(q, 0) + 1
        yield str(q), position[q], item


def trec_run(run, *, level: str = "document", order: str = "cut_then_dedup", name: str = "run") -> str:
    """TREC run text (``qid Q0 docid rank score tag``) of ``run`` at ``level`` in ``order`` (module docstring).

    ``run``: a run table or a :class:`~rag_metrics.io.logs.RunLog` (question_id, rank, doc_id and/or chunk_id;
    at ``level="page"``, the judged rows with an ``item`` column, as
    :meth:`ExperimentResult.to_trec <rag_metrics.experiment.result.ExperimentResult.to_trec>` hands them). ``name``:
    the run's name in the tag, ``<name>.<level>.<order>`` (spaces become ``_``).
    """
    check_choice(level, EXPORT_LEVELS, "level", func="trec_run")
    check_order(order, func="trec_run")
    frame = run_frame(run, func="trec_run")
    column = {"document": "doc_id", "chunk": "chunk_id", "page": "item"}[level]
    rows: dict = {}
    for q, position, item in _positions(frame, column):
        if item is None or (isinstance(item, float) and math.isnan(item)):
            raise InputError(f"trec_run: question {q!r}, position {position}: no {column}; TREC runs need an ID "
                             "per item.", question=q, field=column)
        rows.setdefault(q, []).append((position, str(item)))
    tag = f"{'_'.join(str(name).split())}.{level}.{order if level == 'document' else 'as_ranked'}"
    lines = []
    for q, items in rows.items():
        seen: set = set()
        out = []
        for position, item in items:
            if item in seen:
                if level == "chunk":
                    raise InputError(f"trec_run: question {q!r} lists chunk {item!r} twice; at chunk level each "
                                     "chunk is one item.", question=q, field="chunk_id")
                if order == "cut_then_dedup" or level == "page":
                    out.append(DUPLICATE.format(doc_id=item, position=position))
                continue
            seen.add(item)
            out.append(item)
        for rank, item in enumerate(out, start=1):
            lines.append(f"{q} Q0 {item} {rank} {len(out) - rank + 1} {tag}")
    return "\n".join(lines) + ("\n" if lines else "")


def trec_qrels(golden, *, level: str = "document") -> str:
    """TREC qrels text (``qid 0 docid rel``) of ``golden`` -- a :class:`~rag_metrics.io.golden.GoldenSet`,
    :class:`~rag_metrics.Qrels` or a tidy gold table -- at ``level``: its documents with their labels, its chunk IDs,
    or (``"page"``) its gold pages as ``<doc_id>#p<page>`` (label 1). Labels must be integers (trec_eval reads
    integers); a question without gold (no_answer) has no line -- trec_eval leaves it out, as the package leaves
    its undefined values out of a mean."""
    check_choice(level, EXPORT_LEVELS, "level", func="trec_qrels")
    if level == "page":
        gp = golden.gold_pages
        rows = zip(gp["question_id"], gp["doc_id"] + "#p" + gp["page"].astype(str), [1] * len(gp))
    else:
        qrels = Qrels.coerce(golden, level=level, func="trec_qrels")
        table = qrels.to_dataframe()
        id_col = "doc_id" if "doc_id" in table.columns else "chunk_id"
        table = table[table[id_col].notna()]
        rows = zip(table["question_id"], table[id_col], table["relevance"])
    lines = []
    for q, item, rel in rows:
        if float(rel) != int(rel):
            raise InputError(f"trec_qrels: question {q!r}, {item!r}: label {rel} is not an integer; trec_eval reads "
                             "integer labels.", question=q, field="relevance")
        lines.append(f"{q} 0 {item} {int(rel)}")
    return "\n".join(lines) + ("\n" if lines else "")
