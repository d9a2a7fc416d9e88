"""Slices with intervals (rag_metrics.experiment.slices): what a question can be sliced by, the interval table per
slice and per measure (every option: by, attributes, wide, n_resamples), and the long table for plots, each
checked by hand against the definition (issue 50: every option exercised through its public function)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from rag_metrics.core.errors import InputError
from rag_metrics.experiment.slices import NOT_ATTRIBUTES, interval_table, long_table, question_attributes


def _golden():
    questions = pd.DataFrame({"question": ["a?", "b?", "c?", "d?"], "answer": ["x", "y", "z", "w"],
                              "labelled": [True, True, False, True], "type": ["fact", "fact", "how", "no_answer"],
                              "product": ["p1", "p2", "p1", "p2"]},
                             index=pd.Index(["q1", "q2", "q3", "q4"], name="question_id"))
    gold = pd.DataFrame({"question_id": ["q2", "q1", "q1", "q1", "q3", "q4"],
                         "doc_id": ["zeta", "zeta", "alpha", "zeta", "alpha", None],
                         "page": [1, 2, 3, 4, 1, None]})
    return SimpleNamespace(questions=questions, gold=gold)


def test_attributes_are_the_fields_but_text_answer_and_labelled_and_the_gold_documents_in_gold_order():
    table = question_attributes(_golden())
    assert set(NOT_ATTRIBUTES) == {"question", "answer", "labelled"}
    assert list(table.columns) == ["type", "product", "document"]
    assert table.loc["q1", "document"] == ("zeta", "alpha")       # first appearance, once each, not sorted
    assert table.loc["q2", "document"] == ("zeta",)
    assert table.loc["q4", "document"] == ()                        # no_answer: in no document's slice


def test_a_field_named_document_is_kept_and_corpus_fields_become_document_dot_fields():
    golden = _golden()
    golden.questions["document"] = ["mine"] * 4
    corpus = SimpleNamespace(documents=pd.DataFrame({"language": ["en", "de"], "genre": ["policy", "policy"],
                                                     "text": ["t", "t"], "n_pages": [3, 4]},
                                                    index=["zeta", "alpha"]))
    table = question_attributes(golden, corpus)
    assert table["document"].tolist() == ["mine"] * 4
    assert "document.text" not in table.columns and "document.n_pages" not in table.columns
    assert table.loc["q1", "document.language"] == ("en", "de")
    assert table.loc["q1", "document.genre"] == ("policy",)
    assert table.loc["q4", "document.language"] == ()
    assert "document.language" not in question_attributes(_golden()).columns      # no corpus, no document fields


def _per_question():
    return pd.DataFrame({"hit@5": [1.0, 0.0, 1.0, np.nan], "mrr": [1.0, 0.0, 0.5, np.nan],
                         "type": ["stale", "stale", "stale", "stale"]},
                        index=pd.Index(["q1", "q2", "q3", "q4"], name="question_id"))


def test_without_slice_one_row_per_measure_with_the_package_interval():
    table = interval_table(_per_question(), ["hit@5", "mrr"], n_resamples=200)
    assert list(table.index) == ["hit@5", "mrr"] and table.index.name == "measure"
    assert list(table.columns) == ["n", "mean", "ci_low", "ci_high", "excluded", "method"]
    ci = sps.binomtest(2, 3).proportion_ci(method="exact")
    row = table.loc["hit@5"]
    assert (row["n"], row["excluded"]) == (3, 1)
    assert (row["mean"], row["ci_low"], row["ci_high"]) == pytest.approx((2 / 3, ci.low, ci.high))
    assert table.loc["mrr", "mean"] == pytest.approx(0.5)
    with pytest.raises(InputError, match="wide=True needs a slice"):
        interval_table(_per_question(), ["hit@5"], wide=True)


def test_by_an_attribute_replaces_a_column_of_the_same_name_and_counts_a_tuple_in_each_of_its_slices():
    attrs = question_attributes(_golden())
    table = interval_table(_per_question(), ["hit@5"], by="type", attributes=attrs, n_resamples=200)
    assert "stale" not in table.index.get_level_values("type")        # the attribute's type, not the table's
    assert table.loc[("fact", "hit@5"), "n"] == 2 and table.loc[("fact", "hit@5"), "mean"] == pytest.approx(0.5)
    docs = interval_table(_per_question(), ["hit@5"], by="document", attributes=attrs, n_resamples=200)
    assert docs.loc[("zeta", "hit@5"), "n"] == 2 and docs.loc[("alpha", "hit@5"), "n"] == 2
    assert docs.loc[("alpha", "hit@5"), "mean"] == pytest.approx(1.0)
    with pytest.raises(InputError, match="not a question attribute"):
        interval_table(_per_question(), ["hit@5"], by="hit@5", attributes=attrs)
    own = interval_table(_per_question(), ["hit@5"], by="type", n_resamples=200)     # no attributes: its own
    assert list(own.index.get_level_values("type").unique()) == ["stale"]


def test_wide_gives_one_row_per_slice_with_means_and_leaves_out_slices_with_nothing_defined():
    attrs = question_attributes(_golden())
    wide = interval_table(_per_question(), ["hit@5", "mrr"], by="type", attributes=attrs, wide=True)
    assert list(wide.columns) == ["n", "hit@5", "mrr"]
    assert list(wide.index) == ["fact", "how"]                         # no_answer: nothing defined, left out
    assert wide.loc["fact"].tolist() == pytest.approx([2, 0.5, 0.5])
    assert wide.loc["how"].tolist() == pytest.approx([1, 1.0, 0.5])


def test_n_resamples_reaches_the_bootstrap_of_graded_values():
    pq = pd.DataFrame({"mrr": [1.0, 0.5, 0.33, 0.25, 0.0, 1.0, 0.2, 0.5]})
    a, b = (interval_table(pq, ["mrr"], n_resamples=r).loc["mrr"] for r in (100, 3000))
    assert a["method"] == b["method"]
    assert (a["ci_low"], a["ci_high"]) != (b["ci_low"], b["ci_high"])


def test_the_long_table_names_each_ruler_and_parses_each_measure():
    pq = pd.DataFrame({"hit@5": [1.0, 0.0], "mrr": [1.0, 0.5], "ndcg@3": [1.0, 0.0]})
    evs = {("page", "page judge"): SimpleNamespace(per_question=pq, measures=["hit@5", "mrr"]),
           ("document", None): SimpleNamespace(per_question=pq, measures=["ndcg@3"])}
    long = long_table(evs, n_resamples=100, run="r1")
    assert list(long.columns[:7]) == ["run", "ruler", "level", "judge", "measure", "k", "name"]
    assert "value" in long.columns and "mean" not in long.columns
    assert list(long.index) == [0, 1, 2]
    assert long["ruler"].tolist() == ["page judge", "page judge", "document level"]
    assert long["measure"].tolist() == ["hit", "mrr", "ndcg"]
    assert long["k"].tolist()[0] == 5 and pd.isna(long["k"].tolist()[1]) and long["k"].tolist()[2] == 3
    assert str(long["k"].dtype) == "Int64" and set(long["run"]) == {"r1"}
    assert long.loc[0, "value"] == pytest.approx(0.5)
    empty = long_table({})
    assert empty.empty and list(empty.columns[:3]) == ["run", "ruler", "level"]
