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
                 "rag_metrics.measures.pitfalls", "rag_metrics.serialize", "rag_metrics.text"):
        assert tried_in[name] > 0, name
