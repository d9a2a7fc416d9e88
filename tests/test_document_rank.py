"""One document rank per collapsing order, on every path that computes document-level measures.

Under cut_then_dedup a document's rank is the position of its first chunk (what the reader sees); under
dedup_then_cut its de-duplicated rank. Every path must give the per-question definitions applied to
:func:`document_ranking`: the DataFrame engine (with a doc map or the run's doc_id column), the TREC
general reader with a doc-map file, the small-file columnar reader with a doc map, the page-level measures
(document judge, one gold page per gold document: the same numbers as document level under cut_then_dedup).
Dask is checked in test_distributed.py.
"""

import math
import random

import numpy as np
import pandas as pd
import pytest

from rag_metrics import document_ranking, evaluate, evaluate_trec, parse_measures
from rag_metrics.io.golden import golden_from_records
from rag_metrics.judging.judges import DocumentJudge
from rag_metrics.measures.page_level import evaluate_pages

MEASURES = ["hit@1", "hit@3", "recall@3", "recall@10", "precision@3", "mrr", "mrr@3", "ndcg", "ndcg@3", "map", "map@3",
            "rprec", "judged@3", "num_ret", "hits@3", "f1@3", "bpref"]
ORDERS = ["cut_then_dedup", "dedup_then_cut"]


def case(seed, n_questions=25):
    """Chunk rankings where documents repeat (several chunks of one document), with graded gold documents."""
    rng = random.Random(seed)
    doc_map = {f"c{i:02d}": f"d{i % 7}" for i in range(42)}
    gold_rows, run_rows = [], []
    for q in range(n_questions):
        qid = f"q{q}"
        for d in rng.sample(range(7), rng.randint(1, 3)):
            gold_rows.append({"question_id": qid, "doc_id": f"d{d}", "relevance": rng.choice([0, 1, 1, 2])})
        chunks = rng.sample(sorted(doc_map), rng.randint(0, 12))
        run_rows += [{"question_id": qid, "rank": r, "chunk_id": c, "doc_id": doc_map[c], "score": 100.0 - r}
                     for r, c in enumerate(chunks, 1)]
    return pd.DataFrame(gold_rows), pd.DataFrame(run_rows), doc_map


def reference(golden, run, doc_map, order):
    out = {}
    for qid, gold in golden.groupby("question_id", sort=False):
        labels = dict(zip(gold["doc_id"], gold["relevance"].astype(float)))
        chunks = run[run["question_id"] == qid].sort_values("rank")["chunk_id"].tolist()
        docs = document_ranking(chunks, doc_map, order=order)
        out[qid] = {str(m): m.spec.reference_value(docs, labels, m.k) for m in parse_measures(MEASURES)}
    # question IDs as the package's per-question tables hold them (object), on pandas 2 and 3 alike
    return pd.DataFrame(out).T.astype(float).set_axis(pd.Index(list(out), dtype=object))


def assert_same(ev, expected, label):
    got = ev.per_question[expected.columns].astype(float)
    pd.testing.assert_frame_equal(got.loc[expected.index], expected, check_names=False, obj=label, rtol=1e-12)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("seed", range(3))
def test_every_path_uses_the_rank_of_its_order(tmp_path, seed, order):
    golden, run, doc_map = case(seed)
    expected = reference(golden, run, doc_map, order)
    assert_same(evaluate(golden, run.drop(columns="doc_id"), MEASURES, doc_map=doc_map, order=order), expected,
                "DataFrame, doc map")
    assert_same(evaluate(golden, run.drop(columns="chunk_id"), MEASURES, order=order), expected,
                "DataFrame, the run's doc_id column")
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in golden[["question_id", "doc_id", "relevance"]]
                                            .itertuples(index=False)))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {c} {r} {s} t\n" for q, r, c, s in run[["question_id", "rank",
                                                                                        "chunk_id", "score"]]
                                          .itertuples(index=False)))
    (tmp_path / "map").write_text("".join(f"{c}\t{d}\n" for c, d in doc_map.items()))
    general = evaluate_trec(tmp_path / "qrels", tmp_path / "run", MEASURES, doc_map=tmp_path / "map", order=order,
                            engine="general")
    fast = evaluate_trec(tmp_path / "qrels", tmp_path / "run", MEASURES, doc_map=tmp_path / "map", order=order)
    assert general.settings["engine"] == "general" and fast.settings["engine"] == "fast/small"
    assert general.settings["level"] == fast.settings["level"] == "document"
    assert_same(general, expected, "TREC, general reader")
    assert_same(fast, expected, "TREC, columnar reader")


@pytest.mark.parametrize("seed", range(3))
def test_page_level_under_the_document_judge_is_document_level_cut_then_dedup(seed):
    """One gold page per gold document, every label 1, the document judge: a chunk satisfies its document's gold page,
    so the page-level ranks are chunk positions -- the cut_then_dedup document rank."""
    golden, run, doc_map = case(seed)
    golden = golden.assign(relevance=1)
    records = [{"question_id": q, "question": f"question {q}", "type": "fact",
                "gold_pages": [[d, 1] for d in g["doc_id"]]} for q, g in golden.groupby("question_id", sort=False)]
    gs = golden_from_records(list(enumerate(records, 1)))
    names = ["hit@1", "hit@3", "recall@3", "mrr", "mrr@3", "ndcg", "ndcg@3", "map", "precision@3"]
    page = evaluate_pages(gs, run.assign(text="x"), names, judge=DocumentJudge())
    document = evaluate(golden, run.drop(columns="doc_id"), names, doc_map=doc_map)
    pd.testing.assert_frame_equal(page.per_question[names], document.per_question[names], check_exact=False, rtol=1e-12)


def test_the_seed_example_on_every_path(tmp_path):
    """Chunks [m, m, m, faq], gold {faq}: hit@3 = 0 with MRR 1/4 and nDCG 1/log2(5) (cut_then_dedup); hit@3 = 1 with
    MRR 1/2 and nDCG 1/log2(3) (dedup_then_cut). Never hit@3 = 0 beside MRR = 1/2."""
    golden = pd.DataFrame({"question_id": ["q"], "doc_id": ["faq"]})
    run = pd.DataFrame({"question_id": ["q"] * 4, "rank": [1, 2, 3, 4], "chunk_id": ["m1", "m2", "m3", "f1"]})
    doc_map = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq"}
    (tmp_path / "q").write_text("q 0 faq 1\n")
    (tmp_path / "r").write_text("q Q0 m1 1 4 t\nq Q0 m2 2 3 t\nq Q0 m3 3 2 t\nq Q0 f1 4 1 t\n")
    for order, (hit3, rr, ndcg) in {"cut_then_dedup": (0.0, 0.25, 1 / math.log2(5)),
                                    "dedup_then_cut": (1.0, 0.5, 1 / math.log2(3))}.items():
        for ev in (evaluate(golden, run, ["hit@3", "mrr", "ndcg"], doc_map=doc_map, order=order),
                   evaluate_trec(tmp_path / "q", tmp_path / "r", ["hit@3", "mrr", "ndcg"], doc_map=doc_map, order=order),
                   evaluate_trec(tmp_path / "q", tmp_path / "r", ["hit@3", "mrr", "ndcg"], doc_map=doc_map, order=order,
                                 engine="general")):
            assert ev.values["hit@3"][0] == hit3 and ev.values["mrr"][0] == rr
            assert ev.values["ndcg"][0] == pytest.approx(ndcg, abs=1e-15)


def test_the_search_depth_is_reported_for_every_measure_without_a_cutoff():
    golden, run, doc_map = case(0)
    ev = evaluate(golden, run, ["mrr", "mrr@3", "ndcg", "hit@5"])
    depth = int(run.groupby("question_id").size().max())
    assert ev.settings["search_depth"] == depth == ev.depth("mrr") == ev.depth("ndcg")
    assert ev.depth("mrr@3") == 3 and ev.depth("hit@5") == 5 and ev.depth("RR") == depth
    assert ev.to_dict()["settings"]["search_depth"] == depth
    assert np.max(ev.n_retrieved) == depth
