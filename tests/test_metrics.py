"""Hand-computed cases for each measure, and every edge-case rule of the docstrings."""

import math

import numpy as np
import pandas as pd
import pytest

from rag_metrics import (
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from rag_metrics import InputError
from rag_metrics.io.trec import trec_order
from rag_metrics.measures.evaluator import evaluate, evaluate_trec
from rag_metrics.measures.registry import parse_measure

AT_K = [recall_at_k, precision_at_k, hit_at_k, ndcg_at_k]
OPTIONAL_K = [reciprocal_rank, average_precision]


# ranked: a x b y c   gold: a, b, c (binary)     rel = 1, 0, 1, 0, 1
RANKED = ["a", "x", "b", "y", "c"]
GOLD = {"a", "b", "c"}


def test_recall_hand_computed():
    assert recall_at_k(RANKED, GOLD, 1) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, GOLD, 3) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, GOLD, 5) == 1.0
    assert recall_at_k(RANKED, GOLD, 50) == 1.0


def test_precision_divides_by_k_even_when_fewer_results():
    assert precision_at_k(RANKED, GOLD, 3) == pytest.approx(2 / 3)
    assert precision_at_k(RANKED, GOLD, 10) == pytest.approx(3 / 10)  # only 5 returned, still / 10
    assert precision_at_k([], GOLD, 5) == 0.0


def test_hit_and_reciprocal_rank():
    assert hit_at_k(["x", "a"], GOLD, 1) == 0.0
    assert hit_at_k(["x", "a"], GOLD, 2) == 1.0
    assert reciprocal_rank(["x", "y", "b"], GOLD) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x", "y", "b"], GOLD, k=2) == 0.0
    assert reciprocal_rank(["x"], GOLD) == 0.0


def test_average_precision_hand_computed():
    # rel = 1, 0, 1, 0, 1 -> (1/1 + 2/3 + 3/5) / 3
    assert average_precision(RANKED, GOLD) == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    # map@3 keeps R = 3 in the denominator (trec_eval map_cut)
    assert average_precision(RANKED, GOLD, k=3) == pytest.approx((1 + 2 / 3) / 3)
    # unretrieved relevant documents count as precision 0
    assert average_precision(["a"], {"a", "z"}) == pytest.approx(0.5)


def test_ndcg_linear_hand_computed():
    # labels 3, 2, 3, 0, 1, 2 at ranks 1..6 (Jarvelin & Kekalainen style example)
    gold = {"d1": 3, "d2": 2, "d3": 3, "d5": 1, "d6": 2}
    ranked = ["d1", "d2", "d3", "d4", "d5", "d6"]
    dcg = 3 + 2 / math.log2(3) + 3 / 2 + 0 + 1 / math.log2(6) + 2 / math.log2(7)
    ideal = 3 + 3 / math.log2(3) + 2 / 2 + 2 / math.log2(5) + 1 / math.log2(6)
    assert ndcg_at_k(ranked, gold, 6) == pytest.approx(dcg / ideal)
    # cut at 3: the ideal is cut at 3 too
    assert ndcg_at_k(ranked, gold, 3) == pytest.approx(
        (3 + 2 / math.log2(3) + 3 / 2) / (3 + 3 / math.log2(3) + 2 / 2)
    )


def test_ndcg_exponential_gain():
    gold = {"a": 2, "b": 1}
    assert ndcg_at_k(["b", "a"], gold, 2, gain="exponential") == pytest.approx(
        (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    )
    assert ndcg_at_k(["a", "b"], gold, 2, gain="exponential") == 1.0


def test_ndcg_ideal_comes_from_all_gold_not_only_retrieved():
    # one relevant retrieved at rank 1, another relevant never retrieved
    assert ndcg_at_k(["a"], {"a": 1, "b": 1}, 5) == pytest.approx(1 / (1 + 1 / math.log2(3)))


@pytest.mark.parametrize("func", AT_K + OPTIONAL_K)
def test_no_relevant_gold_is_undefined(func):
    for gold in (set(), {"a": 0}, {"a": -1}, {}):
        value = func(["a", "b"], gold, 3)
        if func is precision_at_k:
            assert value == 0.0
        else:
            assert value is None


def test_min_rel_threshold():
    gold = {"a": 1, "b": 2}
    assert recall_at_k(["a"], gold, 1, min_rel=2) == 0.0
    assert recall_at_k(["b"], gold, 1, min_rel=2) == 1.0
    assert hit_at_k(["a"], {"a": 1}, 1, min_rel=2) is None  # nothing relevant at level 2
    # below min_rel has zero gain in nDCG
    # a (label 1) has gain 0 at level 2; b (gain 2) at rank 2: (2 / log2 3) / 2
    assert ndcg_at_k(["a", "b"], gold, 2, min_rel=2) == pytest.approx(1 / math.log2(3))


def test_negative_labels_are_judged_not_relevant():
    gold = {"bad": -2, "ok": 1}
    assert recall_at_k(["bad", "ok"], gold, 1) == 0.0
    assert ndcg_at_k(["bad", "ok"], gold, 2) == pytest.approx(1 / math.log2(3))
    assert precision_at_k(["bad"], gold, 1) == 0.0


def test_a_repeated_gold_id_counts_once():
    ranked = ["a", "a", "a", "b"]
    assert recall_at_k(ranked, {"a", "b"}, 3) == 0.5
    assert precision_at_k(ranked, {"a", "b"}, 3) == pytest.approx(1 / 3)
    assert hit_at_k(ranked, {"a"}, 3) == 1.0
    assert average_precision(["a", "a"], {"a"}) == 1.0
    assert ndcg_at_k(["a", "a", "a"], {"a": 1}, 3) == 1.0  # not 2.13


@pytest.mark.parametrize("func, bad", [(func, bad) for func in AT_K for bad in [0, -1, 1.5, "5", None, True, 2.0]
                                       if not (func is ndcg_at_k and bad is None)])
def test_k_must_be_a_positive_int(func, bad):
    with pytest.raises(ValueError, match=r"'k' parameter of \w+ must be an int >= 1.*Got"):
        func(["a"], {"a"}, bad)


def test_ndcg_without_k_is_the_whole_ranking():
    # ndcg_at_k(k=None) is nDCG over the whole ranking (trec_eval "ndcg"), documented
    assert ndcg_at_k(["x", "a"], {"a": 1}, None) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["x", "a"], {"a": 1}, None) == ndcg_at_k(["x", "a"], {"a": 1}, 2)


@pytest.mark.parametrize("func", OPTIONAL_K)
def test_optional_k_validated_too(func):
    with pytest.raises(ValueError, match="must be an int >= 1 or None. Got 0"):
        func(["a"], {"a"}, 0)
    assert func(["a"], {"a"}, np.int64(3)) == 1.0


def test_ranked_must_be_ordered():
    with pytest.raises(TypeError, match="no order"):
        recall_at_k({"a", "b"}, {"a"}, 1)
    with pytest.raises(TypeError, match="single string"):
        recall_at_k("abc", {"a"}, 1)
    assert recall_at_k(np.array(["a", "b"]), {"b"}, 2) == 1.0
    assert recall_at_k(pd.Series(["a", "b"]), {"b"}, 1) == 0.0


def test_bad_labels_and_parameters():
    with pytest.raises(ValueError, match="label of gold ID 'a' must be a finite number"):
        recall_at_k(["a"], {"a": "high"}, 1)
    with pytest.raises(ValueError, match="label of gold ID 'a'"):
        recall_at_k(["a"], {"a": float("nan")}, 1)
    with pytest.raises(ValueError, match="'min_rel' parameter of recall_at_k must be a finite number > 0"):
        recall_at_k(["a"], {"a"}, 1, min_rel=0)
    with pytest.raises(ValueError, match="'gain' parameter of ndcg_at_k must be one of"):
        ndcg_at_k(["a"], {"a"}, 1, gain="log")


def test_docstring_examples():
    """Every docstring example in the package runs as written (the definitions' modules must have some)."""
    import doctest
    import importlib
    import pkgutil

    import rag_metrics

    tried_in = {}
    for info in pkgutil.walk_packages(rag_metrics.__path__, "rag_metrics."):
        module = importlib.import_module(info.name)
        failed, tried = doctest.testmod(module)
        assert failed == 0, info.name
        tried_in[info.name] = tried
    for name in ("rag_metrics.measures.metrics", "rag_metrics.measures.collapse", "rag_metrics.measures.registry",
                 "rag_metrics.measures.pitfalls", "rag_metrics.core.serialize", "rag_metrics.core.text"):
        assert tried_in[name] > 0, name


# ---- at the edges, by value ----------------------------------------------------------
# Measures at their edges, by value: cutoff flags, the relevance threshold, nDCG's ideal cut, R-precision's R,
# bpref's judged non-relevant, and trec_eval's tie order (score descending, then document ID descending) on both
# TREC readers. Every expected figure is worked out by hand in the comments.


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
