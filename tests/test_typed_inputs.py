"""Judgments and rankings as typed inputs: every constructor reads the same thing, and a prepared evaluator reads the
judgments once for many runs."""

import gzip
import json

import pandas as pd
import pytest

import rag_metrics as rm
from rag_metrics import InputError, Qrels, Run, evaluate_trec, evaluator
from rag_metrics.io import trec_fast

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d9 0\nq3 0 d4 1\nq3 0 d1 3\n"
RUN = "q1 Q0 d1 1 2.0 x\nq1 Q0 d3 2 2.0 x\nq1 Q0 d2 3 1.0 x\nq2 Q0 d9 1 1.0 x\nq3 Q0 d7 1 0.5 x\nq7 Q0 d1 1 1.0 x\n"
AS_DICT = {"q1": {"d1": 1, "d2": 2, "d3": 0}, "q2": {"d9": 0}, "q3": {"d4": 1, "d1": 3}}
MEASURES = ["mrr", "ndcg@2", "recall@2", "bpref", "judged@2"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def test_every_qrels_constructor_reads_the_same_judgments(tmp_path, files, monkeypatch):
    (tmp_path / "q.tsv").write_text("query-id\tcorpus-id\tscore\n" + QRELS.replace(" 0 ", "\t").replace(" ", "\t"))
    (tmp_path / "q.json").write_text(json.dumps(AS_DICT))
    (tmp_path / "q.gz").write_bytes(gzip.compress(QRELS.encode()))
    (tmp_path / "tabs.txt").write_text(QRELS.replace(" ", "\t"))  # the line-validating reader
    frame = pd.DataFrame([line.split() for line in QRELS.splitlines()], columns=["query_id", "it", "doc_id", "rel"])
    read = {
        "trec": Qrels.from_file(files[0]), "trec (named)": Qrels.from_trec(files[0]), "gzip": Qrels.from_file(tmp_path / "q.gz"),
        "general": Qrels.from_file(tmp_path / "tabs.txt"), "beir": Qrels.from_beir(tmp_path / "q.tsv"),
        "json": Qrels.from_json(tmp_path / "q.json"), "dict": Qrels.from_dict(AS_DICT),
        "frame": Qrels.from_df(frame.astype({"rel": int}), score_col="rel"),
    }
    monkeypatch.setattr(trec_fast, "SMALL_FILE_BYTES", 0)  # the polars reader of large files
    read["polars"] = Qrels.from_file(files[0])
    assert read["polars"]._polars is not None and read["trec"]._polars is None
    for name, qrels in read.items():
        assert qrels.to_dict() == AS_DICT, name
        assert qrels.questions == ("q1", "q2", "q3"), name
        assert qrels.question_codes.tolist() == [0, 0, 0, 1, 2, 2], name
    assert read["beir"].format == "beir" and read["trec"].source == str(files[0]) and len(read["dict"]) == 6
    table = read["trec"].to_dataframe()
    assert list(table.columns) == ["question_id", "doc_id", "relevance"] and len(table) == 6


def test_a_golden_frame_keeps_questions_without_gold_and_attributes():
    golden = pd.DataFrame({"question_id": ["a", "a", "b"], "doc_id": ["x", "y", None], "type": ["fact", "fact", "none"]})
    qrels = Qrels.from_df(golden)
    assert qrels.questions == ("a", "b") and qrels.to_dict() == {"a": {"x": 1, "y": 1}, "b": {}}
    assert qrels.attributes.loc["b", "type"] == "none"
    assert Qrels.from_dict({"a": {"x": 1, "y": 1}, "b": {}}).to_dict() == qrels.to_dict()
    with pytest.raises(InputError, match="golden: row 1: duplicate gold doc_id 'x'"):
        Qrels.from_df(pd.DataFrame({"question_id": ["a", "a"], "doc_id": ["x", "x"]}))
    with pytest.raises(InputError, match="label True is not a finite number"):
        Qrels.from_dict({"a": {"x": True}})


def test_every_run_constructor_gives_the_same_evaluation(tmp_path, files):
    by_score = {}
    for line in RUN.splitlines():
        q, _, d, _, s, _ = line.split()
        by_score.setdefault(q, {})[d] = float(s)
    (tmp_path / "run.json").write_text(json.dumps(by_score))
    scored = pd.DataFrame([(q, d, s) for q, docs in by_score.items() for d, s in docs.items()],
                          columns=["query_id", "doc_id", "score"])
    ranked = Run.from_file(files[1]).read().to_dataframe()
    runs = {"trec": Run.from_file(files[1]), "trec (named)": Run.from_trec(files[1]),
            "json": Run.from_json(tmp_path / "run.json"), "dict": Run.from_dict(by_score), "scored frame": Run.from_df(scored),
            "ranked frame": Run.from_df(ranked[["question_id", "rank", "doc_id"]])}
    prepared = evaluator(files[0], MEASURES)
    expected = prepared.evaluate(runs["trec"]).to_dict(per_question=True)
    for name, run in runs.items():
        got = prepared.evaluate(run).to_dict(per_question=True)
        assert got["per_query"] == expected["per_query"] and got["unknown_questions"] == ["q7"], name
    # trec_eval's tie order: d3 before d1 at score 2.0
    assert ranked[ranked["question_id"] == "q1"]["doc_id"].tolist() == ["d3", "d1", "d2"]
    assert runs["dict"].to_dict()["q1"] == {"d3": 2.0, "d1": 2.0, "d2": 1.0}
    assert runs["trec"].is_file and not runs["dict"].is_file


def test_the_prepared_evaluator_reads_the_judgments_once(tmp_path, files, monkeypatch):
    calls = []
    read = trec_fast.read_qrels_fast
    monkeypatch.setattr(trec_fast, "read_qrels_fast", lambda path: calls.append(path) or read(path))
    runs = []
    for i in range(3):
        path = tmp_path / f"run{i}.txt"
        path.write_text(RUN.replace("2.0", f"{2 + i}.0"))
        runs.append(path)
    prepared = rm.evaluator(files[0], MEASURES)
    results = [prepared.evaluate(r) for r in runs]
    assert len(calls) == 1
    for path, result in zip(runs, results):
        alone = evaluate_trec(files[0], path, MEASURES)
        assert result.to_dict(per_question=True) == alone.to_dict(per_question=True)
    assert len(calls) == 4  # evaluate_trec reads them each time: that is what the evaluator saves
    assert prepared(runs[0]).to_dict() == results[0].to_dict()


def test_the_evaluator_takes_any_judgments_and_says_what_it_expected(files, golden):
    prepared = evaluator(golden, ["hit@3", "mrr"])
    assert prepared.qrels.questions[:2] == tuple(golden.gold["question_id"].unique()[:2])
    assert evaluator(Qrels.from_file(files[0]), ["mrr"]).qrels.source == str(files[0])
    with pytest.raises(InputError, match=r"evaluator takes the judgments first, then the measures"):
        evaluator(["mrr", "ndcg@10"], Qrels.from_file(files[0]))
    with pytest.raises(InputError, match="'engine' parameter of evaluator"):
        evaluator(files[0], engine="warp")
    with pytest.raises(InputError, match="engine='fast' reads TREC files"):
        evaluator(files[0], engine="fast").evaluate(Run.from_dict({"q1": {"d1": 1.0}}))
    with pytest.raises(TypeError, match="'golden' must be Qrels"):
        evaluator(3.5)


def test_evaluate_trec_reports_the_level_of_the_qrels(files):
    assert evaluate_trec(*files, ["mrr"]).settings["level"] == "document"
    chunk = evaluate_trec(*files, ["mrr"], level="chunk")
    assert chunk.settings["level"] == "chunk" and chunk.settings["order"] is None
    assert chunk.to_dict(per_question=True)["per_query"] == evaluate_trec(*files, ["mrr"]).to_dict(per_question=True)["per_query"]
    with pytest.raises(InputError, match="use it with level='document'"):
        evaluate_trec(*files, ["mrr"], level="chunk", doc_map={"d1": "x"})


def test_golden_run_measures_sit_in_the_same_places_in_every_evaluate():
    import inspect

    from rag_metrics.measures import evaluator, page_level

    for func in (evaluator.evaluate, evaluator.evaluate_trec, page_level.evaluate_pages, page_level.evaluate_judged,
                 evaluator.evaluate_dask):
        params = list(inspect.signature(func).parameters)
        assert params[2] == "measures" and params[0] in ("golden", "qrels"), (func.__name__, params)
    assert list(inspect.signature(rm.evaluator).parameters)[:2] == ["golden", "measures"]


def test_run_code_counts_every_row_or_only_the_judged(files):
    qrels = Qrels.from_file(files[0])
    small = Run.from_file(files[1]).code(qrels, level="chunk")
    general = Run.from_file(files[1]).code(qrels, level="chunk", reader="general")
    blocks = trec_fast.code_run_fast(qrels, files[1], small=False)
    assert (small.reader, general.reader, blocks.reader) == ("fast/small", "general", "fast")
    assert general.judged is None and len(general.run_q) == 5  # every row
    for coded in (small, blocks):  # only the judged rows: (question, position, label)
        assert coded.n_retrieved.tolist() == [3, 1, 1]
        q, p, label = coded.judged
        assert sorted(zip(q.tolist(), p.tolist(), label.tolist())) == [(0, 1, 0.0), (0, 2, 1.0), (0, 3, 2.0),
                                                                        (1, 1, 0.0)]
    assert small.unknown_questions == general.unknown_questions == blocks.unknown_questions == ("q7",)
    with_map = Run.from_file(files[1]).code(qrels, doc_map={f"d{i}": f"d{i}" for i in range(10)})
    assert with_map.judged is None and with_map.dedup and len(with_map.run_q) == 5


def test_large_qrels_whose_questions_are_not_together(tmp_path, monkeypatch):
    """The polars reader of large qrels codes questions by first appearance, grouped or not, like the others."""
    text = "q2 0 d1 1\nq1 0 d1 2\nq2 0 d2 0\nq3 0 d5 1\nq1 0 d9 1\n"
    (tmp_path / "q").write_text(text)
    small = Qrels.from_file(tmp_path / "q")
    monkeypatch.setattr(trec_fast, "SMALL_FILE_BYTES", 0)
    large = Qrels.from_file(tmp_path / "q")
    assert large._polars is not None and small._polars is None
    assert large.questions == small.questions == ("q2", "q1", "q3")
    assert large.question_codes.tolist() == small.question_codes.tolist() == [0, 1, 0, 2, 1]
    (tmp_path / "r").write_text("q1 Q0 d9 1 3 t\nq1 Q0 d1 2 2 t\nq2 Q0 d2 1 5 t\nq2 Q0 d1 2 4 t\nq3 Q0 d5 1 1 t\n")
    for qrels in (small, large):
        ev = evaluator(qrels, ["mrr", "ndcg", "recall@1"]).evaluate(tmp_path / "r")
        assert ev.settings["engine"] == "fast" and ev.values["mrr"].tolist() == [0.5, 1.0, 1.0]


def test_equal_scores_are_ranked_by_the_runs_own_id_column_descending():
    """trec_eval's order for equal scores: the ID descending -- the chunk ID when the frame has chunks (here it orders
    the tie opposite to the documents), else the document ID."""
    chunks = Run.from_df(pd.DataFrame({"question_id": ["q1", "q1"], "chunk_id": ["c1", "c2"], "doc_id": ["dB", "dA"],
                                       "score": [0.5, 0.5]})).to_dataframe()
    assert chunks[["rank", "chunk_id", "doc_id"]].values.tolist() == [[1, "c2", "dA"], [2, "c1", "dB"]]
    docs = Run.from_df(pd.DataFrame({"question_id": ["q1", "q1"], "doc_id": ["dA", "dB"],
                                     "score": [0.5, 0.5]})).to_dataframe()
    assert docs[["rank", "doc_id"]].values.tolist() == [[1, "dB"], [2, "dA"]]


def test_graded_labels_round_trip_with_their_values_and_types():
    labels = {"q1": {"d1": 0.5, "d2": 2, "d3": 1.0}}
    back = Qrels.from_dict(labels).to_dict()
    assert back == {"q1": {"d1": 0.5, "d2": 2, "d3": 1}}
    assert [type(v) for v in back["q1"].values()] == [float, int, int]
