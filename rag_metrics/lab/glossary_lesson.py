"""Notebook 00's worked examples (the glossary): the computation behind each table, one call each.

* :func:`order_example` -- four chunks (three of the manual, then the FAQ; gold the FAQ): every measure computed by
  :func:`rag_metrics.evaluate` under both collapsing orders, and which document ranking each value matches.
* :func:`judged_example` -- Judged@k on the sample golden set with BM25: on the answerable questions it equals the
  relevant share of the distinct documents in the top k when every label is a relevant one.
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.errors import ORDERS
from rag_metrics.measures.registry import REGISTRY, parse_measure

FIRST, DEDUP = "first chunk's position", "de-duplicated rank"


def reference(ranking, gold, measure: str) -> float:
    """The per-question definition of ``measure`` (rag_metrics.measures.metrics) on an explicit ranking."""
    m = parse_measure(measure)
    return REGISTRY[m.name].reference_value(ranking, gold, m.k)


def order_example(k: int) -> tuple[pd.DataFrame, dict]:
    """(each measure's value under each order, figures): ``reads[order][measure]`` names the document ranking(s) the
    package's value matches (both when they agree, "neither" when none), ``rank`` the FAQ's rank in each ranking."""
    from rag_metrics.measures.evaluator import evaluate

    chunks = ["manual#1", "manual#2", "manual#3", "faq#1"]
    doc_of = {c: c.split("#")[0] for c in chunks}
    gold = pd.DataFrame({"question_id": ["q"], "doc_id": ["faq"]})
    run = pd.DataFrame({"question_id": "q", "rank": range(1, len(chunks) + 1), "chunk_id": chunks})
    measures = [f"hit@{k}", f"recall@{k}", f"precision@{k}", "mrr", f"ndcg@{k}", "ndcg", "map"]
    values = {order: evaluate(gold, run, measures, doc_map=doc_of, order=order).per_question.iloc[0] for order in ORDERS}
    rankings = {FIRST: [doc_of[c] for c in chunks], DEDUP: list(dict.fromkeys(doc_of[c] for c in chunks))}
    reads = {order: {m: " = ".join(name for name, ranking in rankings.items()
                                   if abs(reference(ranking, {"faq"}, m) - values[order][m]) < 1e-12) or "neither"
                     for m in measures} for order in ORDERS}
    table = pd.DataFrame({order: [float(values[order][m]) for m in measures] for order in ORDERS}, index=measures)
    figures = {"chunks": chunks, "reads": reads, "rank": {name: r.index("faq") + 1 for name, r in rankings.items()},
               "values": {order: {m: float(values[order][m]) for m in measures} for order in ORDERS}}
    return table.rename_axis("measure (one question)"), figures


def one_rule(reads: dict) -> bool:
    """Every measure reads the first chunk's position under cut_then_dedup and the de-duplicated rank under
    dedup_then_cut."""
    return (all(FIRST in r for r in reads["cut_then_dedup"].values())
            and all(DEDUP in r for r in reads["dedup_then_cut"].values()))


def judged_example(k: int, depth: int) -> dict:
    """Judged@k and precision@k on the sample golden set, BM25 over 400/100 chunks searched ``max(depth, k)`` deep."""
    from rag_metrics.measures.evaluator import evaluate
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.retrieval.chunking import chunk_fixed
    from rag_metrics.retrieval.retrievers import make_retriever

    corpus = load_corpus(sample=True)
    golden = load_golden(corpus=corpus, sample=True)
    run = make_retriever("bm25", chunk_fixed(corpus, 400, 100)).search(golden.labelled.reset_index(), max(depth, k))
    per_q = evaluate(golden.gold, run, [f"judged@{k}", f"precision@{k}"]).per_question
    answerable = per_q[per_q["n_relevant"] > 0]
    distinct = run[run["rank"] <= k].groupby("question_id")["doc_id"].nunique().reindex(answerable.index)
    relevant_share = answerable[f"precision@{k}"] * k / distinct
    return {"labels_only_relevant": bool((golden.gold.dropna(subset=["doc_id"])["relevance"] >= 1).all()),
            "same_as_share": bool(((answerable[f"judged@{k}"] - relevant_share).abs() < 1e-9).all()),
            "answerable": float(answerable[f"judged@{k}"].mean()), "all": float(per_q[f"judged@{k}"].mean()),
            "precision": float(answerable[f"precision@{k}"].mean()), "no_answer": int(len(per_q) - len(answerable)),
            "n_answerable": int(len(answerable))}


def order_claim(ex: dict, k: int) -> dict:
    """The claim under :func:`order_example`'s table: one rank rule per order (:func:`one_rule`), or which measure
    reads which rank when it does not hold."""
    first, dedup_rank = ex["rank"][FIRST], ex["rank"][DEDUP]
    cut, dedup = ex["values"]["cut_then_dedup"], ex["values"]["dedup_then_cut"]
    return {"condition": one_rule(ex["reads"]), "name": "one_rank_rule", "figures": {"reads": ex["reads"]},
            "text_if_true": (
                f"**One rule per order, for every measure.** Under `cut_then_dedup` a document's rank is its first "
                f"chunk's position: the FAQ is at position {first}, so hit@{k} = {cut[f'hit@{k}']:.0f} and MRR = "
                f"{cut['mrr']:.4g} read the same rank. Under `dedup_then_cut` every measure reads the de-duplicated "
                f"rank ({dedup_rank}): hit@{k} = {dedup[f'hit@{k}']:.0f}, MRR = {dedup['mrr']:.4g}."),
            "text_if_false": ("**The measures do not read one rank** under `cut_then_dedup`: "
                              + "; ".join(f"{m} reads the {r}" for m, r in ex["reads"]["cut_then_dedup"].items())
                              + ".")}


def depth_example(depth: int, gold_at: int = 12) -> dict:
    """MRR of a 40-result ranking whose only relevant document is at rank ``gold_at``, at two search depths on either
    side of it: ``depth`` and ``max(depth, gold_at)`` when ``depth`` stops short of it, else ``gold_at - 1`` and
    ``depth`` (two different depths always, so the table never shows the same row twice)."""
    deep = [f"other#{i}" for i in range(1, 40)]
    ranking = deep[:gold_at - 1] + ["faq"] + deep[gold_at - 1:]
    shallow, deeper = (depth, gold_at) if depth < gold_at else (gold_at - 1, depth)
    return {"depth": depth, "gold_at": gold_at, "shallow": shallow, "deeper": deeper,
            "rr": reference(ranking[:shallow], {"faq"}, "mrr"),
            "rr_deep": reference(ranking[:deeper], {"faq"}, "mrr")}


def depth_claim(d: dict) -> dict:
    """MRR depends on the search depth: the two depths of :func:`depth_example` give different values (the shallower
    stops short of the relevant document)."""
    return {"condition": d["rr"] != d["rr_deep"], "name": "mrr_depends_on_depth",
            "figures": {k: d[k] for k in ("depth", "gold_at", "shallow", "deeper", "rr", "rr_deep")},
            "text_if_true": (f"The same retriever gives MRR {d['rr']:.4g} searched {d['shallow']} deep and "
                             f"{d['rr_deep']:.4g} searched {d['deeper']} deep (1 / {d['gold_at']}: the relevant "
                             f"document is at rank {d['gold_at']}): an MRR without its depth cannot be compared."),
            "text_if_false": (f"Searched {d['shallow']} and {d['deeper']} deep, MRR is {d['rr']:.4g} both times: "
                              "these two depths do not part here.")}


def ndcg_line(ranking: list, gold: dict, k: int) -> str:
    """Notebook 00's nDCG example as one line: nDCG@1 and Recall@1, then nDCG@k and Recall@k when ``k`` is not 1
    (no figure printed twice)."""
    parts = [f"nDCG@{c} = {reference(ranking, gold, f'ndcg@{c}'):.4g}, Recall@{c} = "
             f"{reference(ranking, gold, f'recall@{c}'):.4g}" for c in dict.fromkeys([1, k])]
    return f"gold {gold}, ranking {ranking}: " + "; ".join(parts)


def ndcg_claim(ndcg1: float, recall1: float) -> dict:
    """nDCG is not a recall: with two gold documents and the better one first, nDCG@1 = 1 while Recall@1 = 0.5."""
    return {"condition": ndcg1 == 1 and recall1 == 0.5, "name": "ndcg_is_not_recall",
            "figures": {"ndcg1": ndcg1, "recall1": recall1},
            "text_if_true": (f"With two gold documents and the better one first, nDCG@1 = {ndcg1:.4g} while Recall@1 = "
                             f"{recall1:.4g}: the top 1 is the best top 1 there is, though it holds half the gold.")}


def judged_claims(judged: dict, k: int) -> list[dict]:
    """The two Judged@k sentences of :func:`judged_example`'s figures: on a golden set that labels only relevant
    documents Judged@k is a precision over distinct documents, and the ``no_answer`` questions (0 by construction)
    lower its mean."""
    return [
        {"condition": judged["labels_only_relevant"] and judged["same_as_share"], "name": "judged_is_a_precision",
         "figures": {"labels_only_relevant": judged["labels_only_relevant"], "same_as_share": judged["same_as_share"]},
         "text_if_true": (f"Every label here is a relevant one, so on each answerable question Judged@{k} equals the "
                          f"relevant share of the distinct documents in the top {k}: a precision over distinct "
                          f"documents ({judged['answerable']:.3f} on average, beside precision@{k} "
                          f"{judged['precision']:.3f}, which divides by {k}; both averaged over the "
                          f"{judged['n_answerable']} answerable questions only). It says nothing about missing "
                          "labels.")},
        {"condition": judged["answerable"] > judged["all"], "name": "no_answer_lowers_judged",
         "figures": {"all": judged["all"], "answerable": judged["answerable"], "n_answerable": judged["n_answerable"],
                     "no_answer": judged["no_answer"]},
         "text_if_true": (f"The {judged['no_answer']} `no_answer` questions score Judged@{k} = 0 by construction: "
                          f"averaged in, the mean moves from {judged['answerable']:.3f} over "
                          f"{judged['n_answerable']} questions to {judged['all']:.3f} over "
                          f"{judged['n_answerable'] + judged['no_answer']} ({judged['answerable']:.3f} x "
                          f"{judged['n_answerable']} / {judged['n_answerable'] + judged['no_answer']}).")},
    ]


def measure_table():
    """Every measure of the registry with its cutoff, whether it is defined without relevant gold, and its names in
    trec_eval and ir_measures (00's closing table)."""
    cutoffs = {"required": "k (required)", "allowed": "k if written, else the search depth", "forbidden": "none"}
    rows = []
    for name in ("recall", "precision", "hit", "mrr", "ndcg", "map", "judged", "sufficiency"):
        spec = REGISTRY[name]
        rows.append({"measure": spec.display(), "cutoff": cutoffs[spec.cutoff],
                     "no relevant gold": "undefined" if spec.undefined_without_relevant else "defined",
                     "trec_eval": ", ".join(n.replace("{k}", "k") for n in spec.trec_eval if n) or "-",
                     "ir_measures": ", ".join(n.replace("{k}", "k") for n in spec.ir_measures if n) or "-"})
    return pd.DataFrame(rows).set_index("measure")
