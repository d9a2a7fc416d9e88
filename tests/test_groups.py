"""Evidence groups: a question's gold written as groups (all needed, any page within one), and sufficiency@k."""

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics import InputError, evaluate, hit_at_k, parse_measure, recall_at_k
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.experiment.failures import GROUP_MISSING, failure_breakdown_judged
from rag_metrics.io.corpus import corpus_from_pages
from rag_metrics.io.golden import golden_from_records, load_golden
from rag_metrics.io.logs import load_log
from rag_metrics.judging.judges import PageJudge, judge_run
from rag_metrics.measures.metrics import sufficiency_at_k
from rag_metrics.measures.page_level import evaluate_judged

ROOT = Path(__file__).resolve().parents[1]
GROUPS = [[["policy", 3], ["faq", 2]], [["travel", 8]]]


def _one(row, **kw):
    return golden_from_records([(1, {"question_id": "q1", "question": "What?", "answer": "x", **row})], **kw)


# ---- reading ------------------------------------------------------------------------------------------------

def test_groups_are_read_from_json_and_give_the_gold_pages():
    g = _one({"gold_groups": GROUPS})
    assert list(map(tuple, g.gold_pages[["doc_id", "page"]].to_numpy())) == [("policy", 3), ("faq", 2), ("travel", 8)]
    assert sorted(g.gold["doc_id"]) == ["faq", "policy", "travel"]
    assert g.groups()["q1"] == [frozenset({("policy", 3), ("faq", 2)}), frozenset({("travel", 8)})]
    assert g.gold_groups["group"].tolist() == [1, 1, 2] and g.has_groups
    same = _one({"gold_groups": GROUPS, "gold_pages": [["travel", 8], ["faq", 2], ["policy", 3]]})
    assert same.groups() == g.groups()


def test_a_set_without_groups_keeps_its_fingerprint_and_groups_change_it(golden):
    assert golden.fingerprint() == "3e25fee2f5f5facd"  # the sample set, as every notebook and history record has it
    assert not golden.has_groups and golden.groups()["q061"] == [frozenset({("expense_policy", 9), ("travel_policy", 7)})]
    plain = _one({"gold_pages": [["policy", 3], ["faq", 2], ["travel", 8]]})
    grouped = _one({"gold_groups": GROUPS})
    assert plain.fingerprint() != grouped.fingerprint()


def test_a_subset_keeps_its_questions_rows_and_chunk_gold_carries_their_type():
    """What a part of a log split by question is evaluated against (the Dask path of evaluate_log): every table and
    the backlog keep the rows of the given questions only; the chunk-level gold is the gold chunks with their
    question's type."""
    rows = [{"question_id": "q1", "question": "A?", "type": "multi", "gold_groups": GROUPS, "gold_chunks": ["p#1"]},
            {"question_id": "q2", "question": "B?", "type": "fact", "gold_groups": [[["hr", 1]]],
             "gold_chunks": ["hr#1", "hr#2"]},
            {"question_id": "q3", "question": "C?", "labelled": False},
            {"question_id": "q4", "question": "D?", "labelled": False},
            {"question_id": "q5", "question": "E?", "type": "fact", "gold_docs": ["faq"]}]
    g = golden_from_records(list(enumerate(rows, start=1)))
    sub = g.subset({"q1", "q3"})
    with pytest.raises(InputError, match=r"subset: question ID\(s\) \['zz'\] are not in the golden set"):
        g.subset({"q1", "zz"})  # an ID the set does not hold is refused, not an empty part evaluated silently
    assert list(sub.questions.index) == ["q1", "q3"] and sub.backlog == ("q3",) and g.backlog == ("q3", "q4")
    assert set(g.gold["question_id"]) == {"q1", "q2", "q5"}
    for name in ("gold", "gold_pages", "gold_chunks", "gold_groups"):
        whole = getattr(g, name)
        pd.testing.assert_frame_equal(getattr(sub, name), whole[whole["question_id"].isin(["q1", "q3"])])
    assert set(g.gold_groups["question_id"]) == {"q1", "q2"} and sub.has_groups and sub.fingerprint() != g.fingerprint()
    assert g.chunk_gold().to_dict("records") == [{"question_id": "q1", "chunk_id": "p#1", "type": "multi"},
                                                 {"question_id": "q2", "chunk_id": "hr#1", "type": "fact"},
                                                 {"question_id": "q2", "chunk_id": "hr#2", "type": "fact"}]


@pytest.mark.parametrize("row, message", [
    ({"gold_groups": []}, "non-empty list of groups"),
    ({"gold_groups": [[]]}, "gold group 1 must be a non-empty list"),
    ({"gold_groups": [["policy", 3]]}, r"gold group 1: 'policy' must be \[doc_id, page number\]"),
    ({"gold_groups": [[["policy", 0]]]}, "page 0 is not an integer >= 1"),
    ({"gold_groups": [[["policy", 3], ["policy", 3]]]}, "lists \\['policy', 3\\] twice"),
    ({"gold_groups": [[["policy", 3]], [["policy", 3]]]}, "gold group 2 repeats an earlier group"),
    ({"gold_groups": GROUPS, "gold_pages": [["policy", 3]]}, "group page \\['faq', 2\\] is not in gold_pages"),
    ({"gold_groups": GROUPS, "gold_pages": [["policy", 3], ["faq", 2], ["travel", 8], ["x", 1]]},
     "gold page \\['x', 1\\] is in no group"),
    ({"gold_groups": GROUPS, "type": "no_answer"}, "no_answer question cannot have gold"),
])
def test_bad_groups_name_the_line_and_field(row, message):
    with pytest.raises(InputError, match=message) as err:
        golden_from_records([(7, {"question_id": "q1", "question": "What?", **row})], path="g.jsonl")
    assert str(err.value).startswith("g.jsonl:7:") and err.value.field in ("gold_groups", "gold_pages", "gold_docs")


def test_groups_are_checked_against_the_corpus():
    corpus = corpus_from_pages([{"doc_id": d, "page": p, "text": "t"} for d in ("policy", "faq", "travel")
                                for p in range(1, 4)])
    with pytest.raises(InputError, match="gold page 8 of 'travel' is out of range 1..3"):
        _one({"gold_groups": GROUPS}, corpus=corpus)


def test_csv_groups_as_a_json_cell_or_a_group_column(tmp_path):
    cell = tmp_path / "cell.csv"
    cell.write_text('question_id,question,answer,gold_groups\nq1,What?,x,"' + json.dumps(GROUPS).replace('"', '""')
                    + '"\n', encoding="utf-8")
    long = tmp_path / "long.csv"
    long.write_text("question_id,question,answer,doc_id,page,group\n"
                    "q1,What?,x,policy,3,a\nq1,,,faq,2,a\nq1,,,travel,8,b\nq2,Other?,y,faq,1,\n", encoding="utf-8")
    a, b = load_golden(cell), load_golden(long)
    assert a.groups()["q1"] == b.groups()["q1"] == _one({"gold_groups": GROUPS}).groups()["q1"]
    assert b.groups()["q2"] == [frozenset({("faq", 1)})] and "q2" not in set(b.gold_groups["question_id"])
    shared = tmp_path / "shared.csv"  # one page in two groups: two rows
    shared.write_text("question_id,question,doc_id,page,group\nq1,What?,policy,3,1\nq1,,faq,2,1\nq1,,faq,2,2\n")
    assert load_golden(shared).groups()["q1"] == [frozenset({("policy", 3), ("faq", 2)}), frozenset({("faq", 2)})]
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("question_id,question,doc_id,page,group\nq1,What?,policy,3,1\nq1,,faq,2,\n")
    with pytest.raises(InputError, match=r"mixed.csv:3: question 'q1': gold page \['faq', '2'\] has no group"):
        load_golden(mixed)
    pageless = tmp_path / "pageless.csv"
    pageless.write_text("question_id,question,doc_id,page,group\nq1,What?,policy,,1\n")
    with pytest.raises(InputError, match="pageless.csv:2: .*a 'group' needs the 'doc_id' and 'page'"):
        load_golden(pageless)


# ---- the definition --------------------------------------------------------------------------------------------

def test_sufficiency_by_hand():
    gold = {"policy", "faq", "travel"}
    groups = [{"policy", "faq"}, {"travel"}]
    # ranked: faq, x, travel -> group 1 at rank 1, group 2 at rank 3
    assert [sufficiency_at_k(["faq", "x", "travel"], gold, k, groups=groups) for k in (1, 2, 3)] == [0.0, 0.0, 1.0]
    # both pages of group 1 and none of group 2: "any gold" says hit, sufficiency says no
    assert sufficiency_at_k(["faq", "policy"], gold, 2, groups=groups) == 0.0 and hit_at_k(["faq", "policy"], gold, 2) == 1
    # every group satisfied without every gold page: recall < 1, sufficient
    assert sufficiency_at_k(["policy", "travel"], gold, 2, groups=groups) == 1.0
    assert recall_at_k(["policy", "travel"], gold, 2) == pytest.approx(2 / 3)
    # a group whose only member is below the relevance level can never be satisfied
    assert sufficiency_at_k(["policy", "travel"], {"policy": 2, "faq": 2, "travel": 1}, 2, groups=groups,
                            min_rel=2) == 0.0
    assert sufficiency_at_k(["x"], {"a": 0}, 1, groups=[{"a"}]) is None
    with pytest.raises(InputError, match="a group is empty"):
        sufficiency_at_k(["a"], {"a"}, 1, groups=[set()])
    assert parse_measure("Sufficiency@5") == parse_measure("suff_5")


DOCS = list("abcdef")


@given(st.lists(st.sampled_from(DOCS), max_size=8), st.sets(st.sampled_from(DOCS), min_size=1),
       st.integers(1, 8), st.randoms(use_true_random=False))
def test_sufficiency_lies_between_all_and_any(ranked, gold, k, rnd):
    members = sorted(gold)
    rnd.shuffle(members)
    cut = sorted(rnd.sample(range(1, len(members)), min(rnd.randint(0, 2), len(members) - 1))) if len(members) > 1 else []
    groups = [set(members[a:b]) for a, b in zip([0, *cut], [*cut, len(members)])]
    value = sufficiency_at_k(ranked, gold, k, groups=groups)
    assert value in (0.0, 1.0)
    if recall_at_k(ranked, gold, k) == 1.0:
        assert value == 1.0
    if value == 1.0:
        assert hit_at_k(ranked, gold, k) == 1.0
    assert sufficiency_at_k(ranked, gold, k) == hit_at_k(ranked, gold, k)  # no groups: one group, "any"
    singletons = [{m} for m in members]
    assert sufficiency_at_k(ranked, gold, k, groups=singletons) == float(recall_at_k(ranked, gold, k) == 1.0)


def test_without_groups_the_engine_gives_hit(golden):
    run = pd.DataFrame({"question_id": ["q001", "q001", "q002"], "rank": [1, 2, 1],
                        "doc_id": ["travel_policy", "expense_policy", "faq_ja"]})
    ev = evaluate(golden.gold[golden.gold["question_id"].isin(["q001", "q002"])], run,
                  ["hit@1", "hit@2", "sufficiency@1", "sufficiency@2"]).per_question
    assert ev["sufficiency@1"].tolist() == ev["hit@1"].tolist() == [0.0, 0.0]
    assert ev["sufficiency@2"].tolist() == ev["hit@2"].tolist() == [1.0, 0.0]


# ---- a hand count on multi-hop questions, through the log path -----------------------------------------------------

PAGES = [{"doc_id": d, "page": p, "text": f"{d} page {p}"} for d in ("policy", "faq", "travel", "hr") for p in range(1, 9)]
MULTI_HOP = [
    # q1: (policy 3 or faq 2) and travel 8
    {"question_id": "q1", "question": "Advance and hotel?", "type": "multi_hop", "answer": "x", "gold_groups": GROUPS},
    # q2: hr 1 and hr 5 and policy 7 (three groups of one page)
    {"question_id": "q2", "question": "Who approves, and by when?", "type": "multi_hop", "answer": "y",
     "gold_groups": [[["hr", 1]], [["hr", 5]], [["policy", 7]]]},
    # q3: no groups: one group of its two pages
    {"question_id": "q3", "question": "Receipts?", "type": "fact", "answer": "z",
     "gold_pages": [["faq", 4], ["policy", 4]]},
    # q4: (travel 1 or travel 2) and (faq 6 or hr 6)
    {"question_id": "q4", "question": "Class and insurance?", "type": "multi_hop", "answer": "w",
     "gold_groups": [[["travel", 1], ["travel", 2]], [["faq", 6], ["hr", 6]]]},
]
LOG = {  # what was retrieved, pages as logged (window 0)
    "q1": [("faq", 2), ("policy", 3), ("hr", 2), ("travel", 8)],
    "q2": [("hr", 5), ("hr", 1), ("faq", 1), ("hr", 3), ("policy", 7)],
    "q3": [("hr", 4), ("policy", 4)],
    "q4": [("travel", 2), ("hr", 6), ("travel", 1)],
}
# By hand, sufficiency@k for k = 1..5:
#   q1: group 1 (faq 2) at rank 1, group 2 (travel 8) at rank 4        -> 0 0 0 1 1
#   q2: hr 5 at 1, hr 1 at 2, policy 7 at 5                          -> 0 0 0 0 1
#   q3: one group {faq 4, policy 4}: policy 4 at rank 2 (= hit@k)    -> 0 1 1 1 1
#   q4: travel 2 at 1, hr 6 at 2                                      -> 0 1 1 1 1
HAND = {"q1": [0, 0, 0, 1, 1], "q2": [0, 0, 0, 0, 1], "q3": [0, 1, 1, 1, 1], "q4": [0, 1, 1, 1, 1]}
HIT = {"q1": [1, 1, 1, 1, 1], "q2": [1, 1, 1, 1, 1], "q3": [0, 1, 1, 1, 1], "q4": [1, 1, 1, 1, 1]}


@pytest.fixture
def multi_hop(tmp_path):
    corpus = corpus_from_pages(PAGES)
    golden = golden_from_records(enumerate(MULTI_HOP, start=1), corpus=corpus)
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps({"question_id": q, "retrieved": [{"doc_id": d, "page": p} for d, p in items]}) + "\n"
                           for q, items in LOG.items()))
    return golden, load_log(log), corpus


def test_sufficiency_equals_a_hand_count_on_multi_hop_questions(multi_hop):
    golden, log, corpus = multi_hop
    result = evaluate_log(golden, log, corpus, ks=(1, 2, 3, 4, 5), window=0, primary="page")
    pq = result.evaluation.per_question
    for q, expected in HAND.items():
        assert [pq.at[q, f"sufficiency@{k}"] for k in range(1, 6)] == expected, q
        assert [pq.at[q, f"hit@{k}"] for k in range(1, 6)] == HIT[q], q
    assert "sufficiency@5" in result.headline_measures
    assert result.by("type", wide=True).loc["multi_hop", "sufficiency@5"] == 1.0
    assert result.by("type", wide=True).loc["multi_hop", "hit@5"] == 1.0


def test_the_failure_breakdown_tells_a_missing_group_apart(multi_hop):
    golden, log, corpus = multi_hop
    result = evaluate_log(golden, log, corpus, ks=(1, 3), window=0, primary="page")
    fb = result.failures.set_index("question_id")
    # at k = 3: q1 has faq 2 / policy 3 but not travel 8; q2 has hr 5, hr 1 but not policy 7; q3, q4 complete
    assert fb["failure"].to_dict() == {"q1": GROUP_MISSING, "q2": GROUP_MISSING}
    assert fb.at["q1", "missing"] == "travel p.8" and fb.at["q2", "missing"] == "policy p.7"
    assert fb.at["q1", "groups"] == 2 and fb.at["q1", "groups_missing"] == 1
    counts = result.failure_counts()
    assert counts.at[GROUP_MISSING, "questions"] == 2 and counts.at["not_retrieved", "questions"] == 0
    judged = judge_run(result.run[result.run["rank"] <= 1], None, golden.gold_pages, PageJudge(window=0), corpus)
    at1 = failure_breakdown_judged(golden, judged, 1).set_index("question_id")["failure"].to_dict()
    assert at1 == {"q1": GROUP_MISSING, "q2": GROUP_MISSING, "q3": "not_retrieved", "q4": GROUP_MISSING}


def test_a_chunk_crossing_two_pages_satisfies_both_groups():
    golden = golden_from_records([(1, MULTI_HOP[0])])
    judged = pd.DataFrame({"question_id": ["q1"], "rank": [1], "satisfies": [frozenset({("faq", 2), ("travel", 8)})]})
    pq = evaluate_judged(golden, judged, ["hit@1", "sufficiency@1"]).per_question
    assert pq.at["q1", "sufficiency@1"] == 1.0


def test_no_groups_no_change_in_the_report_tables(golden, corpus):
    from rag_metrics.io.corpus import data_dir

    result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), corpus)
    assert not any(m.startswith("sufficiency") for m in result.headline_measures)
    assert list(result.failure_counts().index) == ["not_retrieved", "other_document_first", "wrong_page"]
    assert list(result.failures.columns) == ["question_id", "type", "failure", "first_document", "gold_documents"]


# ---- every path gives the same sufficiency@k: DataFrames, TREC files with a group column, logs --------------------

def test_dataframes_trec_files_and_logs_agree(multi_hop, tmp_path):
    from rag_metrics import evaluate_trec

    golden, log, corpus = multi_hop
    ks = (1, 2, 3, 4, 5)
    measures = [f"sufficiency@{k}" for k in ks] + [f"hit@{k}" for k in ks]
    pages = evaluate_log(golden, log, corpus, ks=ks, window=0, primary="page").evaluation.per_question[measures]
    # the same gold and run with each page as an ID of its own ("doc#pN"), groups in a column
    rows = []
    for q, groups in golden.groups().items():
        members = {}
        for i, group in enumerate(groups, start=1):
            for d, p in group:
                members.setdefault(f"{d}#p{p}", []).append(str(i))
        rows += [{"question_id": q, "doc_id": m, "group": ",".join(g)} for m, g in members.items()]
    gold = pd.DataFrame(rows)
    run = pd.DataFrame([{"question_id": q, "rank": r, "doc_id": f"{d}#p{p}"} for q, items in LOG.items()
                        for r, (d, p) in enumerate(items, start=1)])
    frames = evaluate(gold, run, measures).per_question[measures]
    pd.testing.assert_frame_equal(frames, pages, check_names=False)
    (tmp_path / "qrels").write_text("".join(f"{r.question_id} 0 {r.doc_id} 1 {r.group}\n" for r in gold.itertuples()))
    (tmp_path / "run").write_text("".join(f"{r.question_id} Q0 {r.doc_id} {r.rank} {100 - r.rank} t\n"
                                          for r in run.itertuples()))
    trec = evaluate_trec(tmp_path / "qrels", tmp_path / "run", measures)
    assert trec.settings["engine"] == "general", "a group column takes the general reader"
    pd.testing.assert_frame_equal(trec.per_question[measures].sort_index(), pages.sort_index(), check_names=False)
    dd = pytest.importorskip("dask.dataframe")
    from rag_metrics.measures.evaluator import evaluate_dask

    on_dask = evaluate_dask(gold, dd.from_pandas(run.sample(frac=1.0, random_state=0), npartitions=2), measures)
    pd.testing.assert_frame_equal(on_dask.per_question[measures], pages, check_names=False)


def test_document_level_sufficiency_from_page_groups(multi_hop):
    golden, log, corpus = multi_hop
    doc = evaluate_log(golden, log, corpus, ks=(1, 2, 3), window=0, primary="page").document.per_question
    # q1: (policy or faq) and travel -- faq at 1, travel at 4 -> 0 at every k <= 3
    # q2: hr 1 and hr 5 are one document at document level: hr (groups 1, 2) at rank 1, policy (group 3) at rank 5
    # q4: (travel) and (faq or hr): travel at 1, hr at 2
    assert doc.loc[["q1", "q2", "q4"], "sufficiency@1"].tolist() == [0.0, 0.0, 0.0]
    assert doc.loc[["q1", "q2", "q4"], "sufficiency@2"].tolist() == [0.0, 0.0, 1.0]
    assert golden.document_gold().set_index(["question_id", "doc_id"]).at[("q2", "hr"), "group"] == ["1", "2"]


def test_group_column_errors_name_the_row(tmp_path):
    gold = pd.DataFrame({"question_id": ["q", "q"], "doc_id": ["a", "b"], "group": ["1", None]})
    run = pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": ["a"]})
    with pytest.raises(InputError, match="golden: row 1: question 'q': some gold rows have a group and others not"):
        evaluate(gold, run, ["sufficiency@1"])
    with pytest.raises(InputError, match="group True is not a group label"):
        evaluate(gold.assign(group=[True, True]), run, ["sufficiency@1"])
    # a judged non-relevant ID needs no group
    ok = evaluate(pd.DataFrame({"question_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 0],
                                "group": ["1", None]}), run, ["sufficiency@1"])
    assert ok.per_question.at["q", "sufficiency@1"] == 1.0
    (tmp_path / "q").write_text("q 0 a 1 x\nq 0 b 1\n")
    (tmp_path / "r").write_text("q Q0 a 1 1.0 t\n")
    from rag_metrics import evaluate_trec

    with pytest.raises(InputError, match=r"/q:2: question 'q': some gold rows have a group"):
        evaluate_trec(tmp_path / "q", tmp_path / "r", ["sufficiency@1"])
    (tmp_path / "q").write_text("q 0 a 1 x y\n")
    with pytest.raises(InputError, match=r"/q:1: expected 4 fields 'qid iter docid rel' or 'qid iter docid rel group'"):
        evaluate_trec(tmp_path / "q", tmp_path / "r", ["sufficiency@1"])


CHUNKS = [f"c{i}" for i in range(10)]


@given(st.lists(st.tuples(st.lists(st.sampled_from(CHUNKS), unique=True, max_size=8),
                          st.dictionaries(st.sampled_from(CHUNKS), st.sampled_from([0, 1, 2]), max_size=5),
                          st.lists(st.integers(0, 2), min_size=5, max_size=5)), min_size=1, max_size=4),
       st.integers(1, 9), st.sampled_from([1, 2]))
def test_the_array_kernels_equal_the_definition_with_groups(questions, k, min_rel):
    """Groups through the array kernel equal sufficiency_at_k on every question (labels 0-2, min_rel 1-2, a gold ID in
    one or two groups)."""
    gold_rows, run_rows, expected = [], [], {}
    for qi, (ranking, gold, assign) in enumerate(questions):
        q = f"q{qi}"
        groups: dict = {}
        for (doc, label), g in zip(sorted(gold.items()), assign):
            labels = [str(g)] if label > 0 else []
            if label > 0 and g == 2:
                labels = ["0", "1"]  # in two groups
            for lab in labels:
                groups.setdefault(lab, set()).add(doc)
            gold_rows.append({"question_id": q, "chunk_id": doc, "relevance": label, "group": ",".join(labels) or None})
        if not gold:
            gold_rows.append({"question_id": q, "chunk_id": None, "relevance": None, "group": None})
        run_rows += [{"question_id": q, "rank": r, "chunk_id": c} for r, c in enumerate(ranking, start=1)]
        expected[q] = sufficiency_at_k(ranking, gold, k, min_rel=min_rel, groups=list(groups.values()) or None)
    got = evaluate(pd.DataFrame(gold_rows), pd.DataFrame(run_rows, columns=["question_id", "rank", "chunk_id"]),
                   [f"sufficiency@{k}"], level="chunk", min_rel=min_rel).per_question[f"sufficiency@{k}"]
    for q, value in expected.items():
        assert (value is None and pd.isna(got[q])) or value == got[q], (q, questions, k, min_rel)


def _failure_breakdown_by_definition(golden, judged, k):
    """The breakdown question by question, every question's rows looked at (the definition; the package skips the
    questions that cannot fail)."""
    import pandas as pd

    from rag_metrics.experiment.failures import _COLUMNS, _GROUP_COLUMNS

    top_k = judged[judged["rank"] <= k].sort_values(["question_id", "rank"], kind="stable")
    rows = []
    for q, docs in golden.gold_pages.groupby("question_id")["doc_id"].agg(set).items():
        top = top_k[top_k["question_id"] == q]
        own = golden.groups()[q]
        satisfied = frozenset().union(*top["satisfies"]) if len(top) else frozenset()
        missing = [g for g in own if not g & satisfied]
        if top["hit"].any():
            if not missing:
                continue
            kind = GROUP_MISSING
        elif not top["doc_id"].isin(docs).any():
            kind = "not_retrieved"
        elif top["doc_id"].iloc[0] not in docs:
            kind = "other_document_first"
        else:
            kind = "wrong_page"
        rows.append({"question_id": q, "type": golden.questions["type"].get(q, ""), "failure": kind,
                     "first_document": top["doc_id"].iloc[0] if len(top) else None,
                     "gold_documents": ", ".join(sorted(docs)), "groups": len(own), "groups_missing": len(missing),
                     "missing": "; ".join(" or ".join(f"{d} p.{p}" for d, p in sorted(g)) for g in missing)})
    cols = _COLUMNS + (_GROUP_COLUMNS if golden.has_groups else [])
    return pd.DataFrame(rows, columns=_COLUMNS + _GROUP_COLUMNS)[cols]


@pytest.mark.parametrize("seed", range(6))
def test_failure_breakdown_equals_the_definition(multi_hop, golden, corpus, seed):
    """With and without evidence groups, rows' credits dropped at random: the breakdown that passes over questions
    with a hit equals the one that looks at every question."""
    import numpy as np

    rng = np.random.default_rng(seed)
    cases = [multi_hop[:2]]
    log = load_log(ROOT / "data" / "examples" / "bm25_c300o50.jsonl")
    cases.append((golden, log))
    for gold, lg in cases:
        result = evaluate_log(gold, lg, multi_hop[2] if gold is multi_hop[0] else corpus, ks=(1, 3, 5), window=0,
                              primary="page")
        judged = result.judged["page"].copy()
        drop = rng.random(len(judged)) < 0.4
        judged["satisfies"] = [frozenset() if d else s for d, s in zip(drop, judged["satisfies"])]
        judged["hit"] = judged["satisfies"].map(bool)
        for k in (1, 3, 5):
            fast = failure_breakdown_judged(gold, judged, k)
            slow = _failure_breakdown_by_definition(gold, judged, k)
            assert fast.sort_values("question_id", ignore_index=True).equals(
                slow.sort_values("question_id", ignore_index=True)), (seed, k)
            assert len(fast) > 0
