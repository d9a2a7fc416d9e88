"""evaluate() on DataFrames: exclusions are counted and listed, slicing, and input validation."""

import math

import pandas as pd
import pytest

from rag_metrics import InputError, evaluate, parse_measure, parse_measures

GOLDEN = pd.DataFrame(
    {
        "question_id": ["q1", "q1", "q2", "q3", "q4"],
        "doc_id": ["manual", "faq", None, "terms", "faq"],
        "type": ["multi_hop", "multi_hop", "no_answer", "definition", "definition"],
    }
)
RUN = pd.DataFrame(
    {
        "question_id": ["q1", "q1", "q1", "q2", "q3", "zz"],
        "rank": [1, 2, 3, 1, 1, 1],
        "doc_id": ["manual", "manual", "faq", "faq", "terms", "faq"],
    }
)


def test_summary_counts_and_lists_exclusions():
    ev = evaluate(GOLDEN, RUN, ["recall@2", "precision@2", "mrr"])
    s = ev.summary
    assert s.loc["recall@2", "evaluated"] == 3 and s.loc["recall@2", "excluded"] == 1
    assert s.loc["recall@2", "excluded_ids"] == ("q2",)
    # q1 0.5 (cut at 2 chunks: manual only), q3 1.0, q4 0.0 (judged but no result)
    assert s.loc["recall@2", "mean"] == pytest.approx(0.5)
    assert s.loc["precision@2", "evaluated"] == 4
    assert ev.unknown_questions == ("zz",)
    assert ev.per_question.loc["q4", "n_retrieved"] == 0


def test_by_question_type_is_one_call():
    table = evaluate(GOLDEN, RUN, ["hit@1"]).by("type")
    assert table.loc[("definition", "hit@1"), "mean"] == 0.5
    assert table.loc[("no_answer", "hit@1"), "evaluated"] == 0
    with pytest.raises(InputError, match="'genre' is not a question attribute"):
        evaluate(GOLDEN, RUN, ["hit@1"]).by("genre")


def test_to_dict_uses_null_for_undefined():
    d = evaluate(GOLDEN, RUN, ["mrr"]).to_dict(per_question=True)
    assert d["per_query"]["q2"]["mrr"] is None
    assert d["summary"]["mrr"]["excluded"] == 1


def test_chunk_level():
    golden = pd.DataFrame({"question_id": ["q"], "chunk_id": ["c2"], "relevance": [2]})
    run = pd.DataFrame({"question_id": ["q", "q"], "rank": [2, 1], "chunk_id": ["c2", "c1"]})
    ev = evaluate(golden, run, ["mrr"], level="chunk")
    assert ev.per_question.loc["q", "mrr"] == 0.5  # rank order, not row order


@pytest.mark.parametrize(
    "golden, run, kwargs, message",
    [
        (GOLDEN.drop(columns="doc_id"), RUN, {}, r"golden: missing column\(s\) \['doc_id'\]"),
        (GOLDEN, RUN.drop(columns="rank"), {}, r"run: missing column\(s\) \['rank'\]"),
        (GOLDEN.assign(relevance=["1", "x", 1, 1, 1]), RUN, {}, "row 1: question 'q1', doc_id 'faq': relevance 'x'"),
        (pd.concat([GOLDEN, GOLDEN.iloc[:1]], ignore_index=True), RUN, {}, "duplicate gold doc_id 'manual' for question 'q1'"),
        (GOLDEN, RUN.assign(rank=[1, 1, 2, 1, 1, 1]), {}, "question 'q1' has rank 1 twice"),
        (GOLDEN, RUN.assign(rank=[1, 2, 0, 1, 1, 1]), {}, r"rank 0 is not an integer in \[1, 9223372036854775807\]"),
        (GOLDEN, RUN.assign(rank=[1, 2, 2.5, 1, 1, 1]), {}, "rank 2.5 is not an integer in"),
        (GOLDEN, RUN.assign(doc_id=["a", None, "b", "c", "d", "e"]), {}, "run: row 1: doc_id is empty"),
        (GOLDEN.assign(question_id=[None, "q1", "q2", "q3", "q4"]), RUN, {}, "golden: row 0: question_id is empty"),
        (
            GOLDEN,
            RUN.rename(columns={"doc_id": "chunk_id"}),
            {"doc_map": {"manual": "m", "faq": "f"}},
            "unknown chunk ID 'terms' \\(question 'q3'\\)",
        ),
        (
            GOLDEN.rename(columns={"doc_id": "chunk_id"}),
            RUN.rename(columns={"doc_id": "chunk_id"}),
            {"level": "chunk"},
            "chunk 'manual' is retrieved twice for question 'q1'",
        ),
    ],
)
def test_bad_frames_are_named(golden, run, kwargs, message):
    with pytest.raises(InputError, match=message):
        evaluate(golden, run, ["recall@2"], **kwargs)


def test_bad_parameters():
    with pytest.raises(ValueError, match="'level' parameter of evaluate"):
        evaluate(GOLDEN, RUN, level="page")
    with pytest.raises(ValueError, match="'order' parameter of evaluate"):
        evaluate(GOLDEN, RUN, order="x")
    with pytest.raises(TypeError, match="The 'golden' parameter of evaluate must be a pandas DataFrame"):
        evaluate({"q": ["a"]}, RUN)


def test_measure_names_round_trip():
    for text in ["recall@5", "precision@10", "hit@3", "mrr", "mrr@10", "ndcg@10", "ndcg", "map", "map@100"]:
        assert str(parse_measure(text)) == text
    assert str(parse_measure("P@5")) == "precision@5"
    assert str(parse_measure("success@1")) == "hit@1"
    assert str(parse_measure("recip_rank")) == "mrr"
    assert [str(m) for m in parse_measures(["ndcg@10", "nDCG@10", "mrr"])] == ["ndcg@10", "mrr"]
    for bad, msg in [("recall", "needs a cutoff"), ("ndcg@0", "Unknown measure|>= 1"), ("bleu", "Unknown measure")]:
        with pytest.raises(ValueError, match=msg):
            parse_measure(bad)


def test_package_attribute_is_the_function_after_submodule_imports():
    import rag_metrics
    import rag_metrics.measures.evaluator  # noqa: F401  (importing the module must not shadow the functions)
    from rag_metrics.lab import grid# noqa: F401

    assert rag_metrics.evaluate is rag_metrics.measures.evaluator.evaluate and callable(rag_metrics.evaluate)
    assert rag_metrics.evaluator is rag_metrics.measures.evaluator.evaluator and callable(rag_metrics.evaluator)


def test_command_line_path_does_not_import_pandas():
    import subprocess
    import sys

    code = "import sys, rag_metrics.cli, rag_metrics.io.trec_fast; print('pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


# ---- IDs compared as written (issue: numeric IDs, nulls, repeated index labels, huge ranks) --------------

def test_numeric_ids_with_a_null_gold_row():
    golden = pd.DataFrame({"question_id": ["q1", "q2"], "doc_id": [101, None]})  # pandas makes this 101.0
    run = pd.DataFrame({"question_id": ["q1", "q2"], "rank": [1, 1], "doc_id": [101, 7]})
    pq = evaluate(golden, run, ["recall@5"]).per_question
    assert pq.loc["q1", "recall@5"] == 1.0 and pd.isna(pq.loc["q2", "recall@5"])


def test_integer_question_ids_match_across_int_and_float_columns():
    golden = pd.DataFrame({"question_id": [1, 2], "doc_id": ["a", "b"]})
    run = pd.DataFrame({"question_id": [1.0, 2.0, float("nan")], "rank": [1, 1, 1], "doc_id": ["a", "x", "a"]}).dropna()
    ev = evaluate(golden, run, ["mrr"])
    assert ev.unknown_questions == () and ev.per_question["mrr"].tolist() == [1.0, 0.0]
    assert list(ev.per_question.index) == ["1", "2"]
    strings = pd.DataFrame({"question_id": ["1.0"], "rank": [1], "doc_id": ["a"]})  # a string is compared as written
    assert evaluate(golden, strings, ["mrr"]).unknown_questions == ("1.0",)


@pytest.mark.parametrize("column, values, message", [
    ("doc_id", [1.5, 2.0], r"golden: row 0: doc_id 1.5 is not an integer"),
    ("doc_id", [True, False], r"golden: row 0: doc_id True \(bool\) is not an ID"),
    ("doc_id", [b"a", "b"], r"golden: row 0: doc_id b'a' \(bytes\) is not an ID"),
    ("question_id", [("a",), "b"], r"golden: row 0: question_id \('a',\) \(tuple\) is not an ID"),
])
def test_ids_that_are_not_ids(column, values, message):
    golden = pd.DataFrame({"question_id": ["q1", "q2"], "doc_id": ["a", "b"]})
    golden[column] = pd.Series(values, dtype=object)
    run = pd.DataFrame({"question_id": ["q1"], "rank": [1], "doc_id": ["a"]})
    with pytest.raises(InputError, match=message):
        evaluate(golden, run, ["mrr"])


def test_repeated_index_labels_are_named_by_position():
    golden = pd.concat([GOLDEN, GOLDEN.assign(question_id=["q5", "q5", "q6", "q7", "q8"])])  # labels 0..4 twice
    run = pd.concat([RUN, RUN.assign(rank=[1, 2, 3, 1, 1, 1])])
    run.iloc[8, run.columns.get_loc("rank")] = 0
    with pytest.raises(InputError, match=r"run: row 8: question 'q1': rank 0 is not an integer"):
        evaluate(golden, run, ["mrr"])
    golden.iloc[6, golden.columns.get_loc("question_id")] = None
    with pytest.raises(InputError, match=r"golden: row 6: question_id is empty"):
        evaluate(golden, RUN, ["mrr"])


@pytest.mark.parametrize("rank", [1e20, 2**63, 2**70, float("inf"), -1])
def test_ranks_beyond_int64_are_refused_not_wrapped(rank):
    run = pd.DataFrame({"question_id": ["q1", "q1"], "rank": pd.Series([rank, 5], dtype=object),
                        "doc_id": ["x", "manual"]})
    with pytest.raises(InputError, match=r"run: row 0: question 'q1': rank .* is not an integer in \[1, 9223372036854775807\]"):
        evaluate(GOLDEN, run, ["mrr"])


def test_the_largest_int64_rank_is_fine():
    run = pd.DataFrame({"question_id": ["q1", "q1"], "rank": [2**63 - 1, 5], "doc_id": ["x", "manual"]})
    assert evaluate(GOLDEN, run, ["mrr"]).per_question.loc["q1", "mrr"] == 1.0  # manual (rank 5) comes first


def test_summary_dict_and_summary_are_one_computation():
    """The JSON summary and the DataFrame summary come from summary_rows: same means, counts and excluded IDs,
    computed here by hand."""
    golden = pd.DataFrame({"question_id": ["a", "b", "c"], "doc_id": ["d1", "d2", None]})
    run = pd.DataFrame({"question_id": ["a", "a", "b", "c"], "rank": [1, 2, 1, 1], "doc_id": ["x", "d1", "y", "d1"]})
    ev = evaluate(golden, run, ["mrr", "recall@1"])
    frame, plain = ev.summary, ev.summary_dict()
    assert plain["mrr"] == {"mean": (0.5 + 0.0) / 2, "evaluated": 2, "excluded": 1, "excluded_ids": ["c"]}
    assert plain["recall@1"]["mean"] == 0.0
    for m in ("mrr", "recall@1"):
        assert frame.loc[m, "mean"] == plain[m]["mean"] and frame.loc[m, "evaluated"] == plain[m]["evaluated"]
        assert list(frame.loc[m, "excluded_ids"]) == plain[m]["excluded_ids"]


def test_per_question_adds_one_entry_per_question_to_every_layout():
    ev = evaluate(GOLDEN, RUN, ["mrr"])
    questions = {str(q) for q in ev.questions}
    assert "per_query" not in ev.to_dict() and set(ev.to_dict(per_question=True)["per_query"]) == questions
    assert len(ev.to_csv(True).splitlines()) == 1 + len(questions) and len(ev.to_csv().splitlines()) == 2
    assert [line.split("\t")[1] for line in ev.to_trec(per_question=False).splitlines()] == ["all", "all"]
    defined = {str(q) for q in ev.per_question["mrr"].dropna().index}  # trec_eval leaves undefined values out
    assert {line.split("\t")[1] for line in ev.to_trec().splitlines()} == defined | {"all"} != {"all"}


@pytest.mark.parametrize("gain, expected", [
    ("linear", (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))),
    ("exponential", (1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3))),  # 2**rel - 1
])
def test_evaluate_uses_the_gain_it_is_given(gain, expected):
    """nDCG@2 on graded labels ranked worst first (d2 relevance 1, then d1 relevance 3), computed by hand: the gain
    handed to ``evaluate`` reaches the measure (0.797 linear, 0.710 exponential)."""
    golden = pd.DataFrame({"question_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [3, 1]})
    run = pd.DataFrame({"question_id": ["q1", "q1"], "rank": [1, 2], "doc_id": ["d2", "d1"]})
    ev = evaluate(golden, run, ["ndcg@2"], gain=gain)
    assert ev.per_question.loc["q1", "ndcg@2"] == pytest.approx(expected)
