"""Measures at their edges, by value: cutoff flags, the relevance threshold, nDCG's ideal cut, R-precision's R,
bpref's judged non-relevant, and trec_eval's tie order (score descending, then document ID descending) on both
TREC readers. Every expected figure is worked out by hand in the comments."""

import numpy as np
import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.io.trec import trec_order
from rag_metrics.measures.evaluation import evaluate, evaluate_trec
from rag_metrics.measures.registry import parse_measure


@pytest.mark.parametrize("text", ["hit", "recall", "precision", "rprec@5", "bpref@3", "hit@0", "mrr@0"])
def test_cutoffs_required_forbidden_and_positive(text):
    with pytest.raises(InputError):
        parse_measure(text)


@pytest.mark.parametrize("text, k", [("hit@1", 1), ("mrr", None), ("ndcg@10", 10), ("rprec", None), ("map", None)])
def test_valid_cutoffs_parse(text, k):
    assert parse_measure(text).k == k


def _eval(gold, ranked, measures, **kw):
    """One question: gold {doc: label}, ranked [doc, ...] (rank 1 first)."""
    golden = pd.DataFrame({"question_id": "q", "doc_id": list(gold), "relevance": list(gold.values())})
    run = pd.DataFrame({"question_id": "q", "doc_id": ranked, "rank": range(1, len(ranked) + 1)})
    pq = evaluate(golden, run, measures, **kw).per_question
    return {m: float(pq.at["q", m]) for m in measures}


def test_relevance_threshold_is_inclusive():
    gold = {"a": 1, "b": 2, "c": 0}
    # min_rel=2: only b is relevant -> found at rank 2
    assert _eval(gold, ["a", "b", "c"], ["mrr", "recall@3"], min_rel=2) == {"mrr": 0.5, "recall@3": 1.0}
    # min_rel=1: a and b relevant -> rank 1
    assert _eval(gold, ["a", "b", "c"], ["mrr", "recall@1"], min_rel=1) == {"mrr": 1.0, "recall@1": 0.5}


def test_ndcg_ideal_ranking_is_cut_at_k():
    # gold a, b (label 1); ranking x, a: DCG@2 = 1/log2(3); ideal@2 = 1 + 1/log2(3)
    expected = (1 / np.log2(3)) / (1 + 1 / np.log2(3))
    assert _eval({"a": 1, "b": 1}, ["x", "a"], ["ndcg@2"])["ndcg@2"] == pytest.approx(expected)
    # ideal@1 = 1: a at rank 1 gives 1.0
    assert _eval({"a": 1, "b": 1}, ["a", "x"], ["ndcg@1"])["ndcg@1"] == 1.0


def test_r_precision_counts_the_top_r():
    # R = 2; top 2 = a, x -> 1/2; top 3 would hold b too
    assert _eval({"a": 1, "b": 1}, ["a", "x", "b"], ["rprec"])["rprec"] == 0.5
    assert _eval({"a": 1, "b": 1}, ["x", "b", "a"], ["rprec"])["rprec"] == 0.5
    assert _eval({"a": 1, "b": 1}, ["b", "a"], ["rprec"])["rprec"] == 1.0


def test_bpref_counts_label_zero_as_judged_non_relevant():
    # relevant a; judged non-relevant n (label 0) ranked above it; R = 1, N = 1:
    # bpref = 1 - min(1, 1) / min(R, N) = 0
    assert _eval({"a": 1, "n": 0}, ["n", "a"], ["bpref"])["bpref"] == 0.0
    # an unjudged document above it does not count
    assert _eval({"a": 1, "n": 0}, ["u", "a", "n"], ["bpref"])["bpref"] == 1.0


def _trec(tmp_path, run_lines, qrels_lines):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{line}\n" for line in qrels_lines))
    run.write_text("".join(f"{line}\n" for line in run_lines))
    return qrels, run


@pytest.mark.parametrize("engine", ["fast", "general"])
def test_equal_scores_are_ranked_by_document_id_descending(tmp_path, engine):
    qrels, run = _trec(tmp_path, [
        # q1: a tie of two (d1, d2); trec_eval ranks d2 first, so the relevant d1 is at rank 2
        "q1 Q0 d1 1 5.0 t", "q1 Q0 d2 2 5.0 t", "q1 Q0 d0 3 1.0 t",
        # q2: a tie of three (e1, e2, e3): e3, e2, e1, so the relevant e1 is at rank 3
        "q2 Q0 e1 1 2.0 t", "q2 Q0 e2 2 2.0 t", "q2 Q0 e3 3 2.0 t",
        # q3: lines out of order; the best score (f9) is rank 1 whatever the file order
        "q3 Q0 f1 1 0.5 t", "q3 Q0 f9 2 9.0 t", "q3 Q0 f5 3 3.0 t",
    ], ["q1 0 d1 1", "q2 0 e1 1", "q3 0 f9 1", "q3 0 f5 1"])
    pq = evaluate_trec(qrels, run, ["mrr", "precision@1"], engine=engine).per_question
    assert pq["mrr"].to_dict() == pytest.approx({"q1": 0.5, "q2": 1 / 3, "q3": 1.0})
    assert pq["precision@1"].to_dict() == {"q1": 0.0, "q2": 0.0, "q3": 1.0}


def test_trec_order_by_value():
    question = np.array([0, 0, 0, 0, 1, 1])
    score = np.array([1.0, 3.0, 1.0, 1.0, 2.0, 2.0])
    ids = np.array(["b", "z", "c", "a", "x", "y"])
    order = trec_order(question, score, lambda rows: ids[rows])
    assert ids[order].tolist() == ["z", "c", "b", "a", "y", "x"]
    order = trec_order(question, score, lambda rows: ids[rows], lambda a, b: ids[a] > ids[b])
    assert ids[order].tolist() == ["z", "c", "b", "a", "y", "x"]
