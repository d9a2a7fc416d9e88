"""The measures and formats users bring from trec_eval, ir_measures, ranx and BEIR: each one round-trips."""

import csv
import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

from rag_metrics import InputError, evaluate, evaluate_trec, parse_measure
from rag_metrics.experiment.compare import compare_runs
from rag_metrics.stats import compare_to_baseline
from rag_metrics.cli import main
from rag_metrics.measures.metrics import f1_at_k, hits_at_k, judged_at_k

# The case of ir_measures' own Judged test (tests/test_judged.py there): the values it expects.
IRM_QRELS = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 2\n"
IRM_RUN = ("0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
           "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n")


@pytest.fixture
def irm(tmp_path):
    (tmp_path / "qrels.txt").write_text(IRM_QRELS)
    (tmp_path / "run.txt").write_text(IRM_RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def test_judged_matches_ir_measures(irm):
    ev = evaluate_trec(*irm, ["judged@1", "judged@5", "judged@1000"])
    assert ev.per_question.loc["0", ["judged@1", "judged@5", "judged@1000"]].tolist() == [1.0, 1.0, 1.0]
    assert ev.per_question.loc["1", ["judged@1", "judged@5", "judged@1000"]].tolist() == [0.0, 0.25, 0.25]
    assert judged_at_k([], {"a": 1}, 5) is None  # nothing retrieved: undefined, not a division by zero
    assert judged_at_k(["a", "a", "b"], {"a": -1}, 2) == 1.0  # any label counts; the repeat is one item


def test_f1_and_hits_hand_computed():
    # rel = 1, 0, 1, 0 with R = 3: P@4 = 2/4, R@4 = 2/3, F1 = 2 * 0.5 * 0.667 / 1.167 = 4/7
    assert f1_at_k(["a", "x", "b", "y"], {"a", "b", "c"}, 4) == pytest.approx(4 / 7)
    assert f1_at_k(["x"], {"a"}, 1) == 0.0 and f1_at_k(["x"], set(), 1) is None
    assert hits_at_k(["a", "x", "b", "y"], {"a", "b", "c"}, 2) == 1.0
    assert hits_at_k(["a", "x", "b"], {"a": 1, "b": 2}, None, min_rel=2) == 1.0
    assert hits_at_k(["x"], set(), 3) == 0.0  # a count: defined without relevant gold


IR_MEASURES_NAMES = {
    "nDCG@10": "ndcg@10", "P@5": "precision@5", "R@100": "recall@100", "RR": "mrr", "RR@10": "mrr@10", "AP": "map",
    "AP@100": "map@100", "Success@5": "hit@5", "Judged@10": "judged@10", "Rprec": "rprec", "Bpref": "bpref",
    "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "hits", "P(rel=2)@5": "precision(rel=2)@5",
    "nDCG@10(rel=2)": "ndcg(rel=2)@10", "ndcg_cut_10": "ndcg@10", "ndcg_cut.10": "ndcg@10", "P_5": "precision@5",
    "recall_1000": "recall@1000", "map_cut_100": "map@100", "recip_rank": "mrr", "success_1": "hit@1",
    "num_rel_ret": "hits", "f1@3": "f1@3", "hits@5": "hits@5",
}


@pytest.mark.parametrize("alias, canonical", list(IR_MEASURES_NAMES.items()))
def test_ir_measures_and_trec_eval_spellings(alias, canonical):
    m = parse_measure(alias)
    assert str(m) == canonical and parse_measure(str(m)) == m


@pytest.mark.parametrize("bad, message", [
    ("Rprec@10", "rprec takes no cutoff"), ("NumRel@3", "num_rel takes no cutoff"), ("judged", "needs a cutoff"),
    ("Judged(rel=2)@10", "does not depend on the relevance level"), ("P(rel=0)@5", "relevance level must be"),
    ("P(rel=2)@5(rel=3)", "give the relevance level once"), ("bpreff", "Did you mean 'bpref'"),
])
def test_bad_names(bad, message):
    with pytest.raises(InputError, match=message):
        parse_measure(bad)


def test_relevance_level_in_the_name_equals_min_rel(tmp_path):
    from test_trec_oracle import merged_cases, write_files

    qp, rp = write_files(tmp_path, *merged_cases(range(3)))
    named = evaluate_trec(qp, rp, ["ndcg(rel=2)@10", "P(rel=2)@5", "bpref(rel=2)", "mrr"])
    level = evaluate_trec(qp, rp, ["ndcg@10", "precision@5", "bpref"], min_rel=2)
    plain = evaluate_trec(qp, rp, ["mrr"])
    for a, b in (("ndcg(rel=2)@10", "ndcg@10"), ("precision(rel=2)@5", "precision@5"), ("bpref(rel=2)", "bpref")):
        np.testing.assert_array_equal(named.values[a], level.values[b])
    np.testing.assert_array_equal(named.values["mrr"], plain.values["mrr"])  # the others keep the global level


# ---- output formats -------------------------------------------------------------------------------

def test_trec_format_round_trips_with_trec_eval_names(irm, capsys):
    measures = ["P@2", "recall@5", "ndcg@3", "mrr", "map", "rprec", "bpref", "hits", "num_rel", "num_ret", "judged@2",
                "hit@1", "f1@2"]
    assert main(["evaluate", *map(str, irm), *sum((["-m", m] for m in measures), []), "--format", "trec",
                 "--per-question"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert all(len(parts) == 3 for parts in lines)
    names = {name.strip() for name, _, _ in lines}
    assert {"P_2", "recall_5", "ndcg_cut_3", "recip_rank", "map", "Rprec", "bpref", "num_rel_ret", "num_rel", "num_ret",
            "success_1", "judged@2", "f1@2", "num_q"} == names
    ev = evaluate_trec(*irm, measures)
    trec = ev.trec_names()
    per_query = {(n.strip(), q): v for n, q, v in lines}
    for m in ev.measures:
        for q, value in zip(ev.questions, ev.values[m]):
            assert float(per_query[trec[m], q]) == pytest.approx(value, abs=5e-5)
    assert per_query["num_rel_ret", "all"] == str(int(ev.values["hits"].sum()))  # counts are summed, as trec_eval
    assert float(per_query["map", "all"]) == pytest.approx(ev.values["map"].mean(), abs=5e-5)


def test_trec_names_only_where_trec_eval_computes_the_same(irm):
    assert evaluate_trec(*irm, ["ndcg@3"], gain="exponential").trec_names() == {"ndcg@3": "ndcg@3"}
    assert evaluate_trec(*irm, ["ndcg@3", "P@2"], min_rel=2).trec_names() == {"ndcg@3": "ndcg@3", "precision@2": "P_2"}


def test_csv_format_round_trips(irm, capsys):
    assert main(["evaluate", *map(str, irm), "-m", "mrr", "-m", "rprec", "--format", "csv", "--per-question"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"question_id": str}).set_index("question_id")
    ev = evaluate_trec(*irm, ["mrr", "rprec"])
    pd.testing.assert_frame_equal(table, ev.per_question[["mrr", "rprec"]], check_names=False, check_index_type=False)
    assert main(["evaluate", *map(str, irm), "-m", "mrr", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows == [{"measure": "mrr", "mean": repr(float(ev.values["mrr"].mean())), "evaluated": "2", "excluded": "0"}]


def test_judged_warning_in_the_summary(irm, capsys):
    ev = evaluate_trec(*irm, ["judged@5"])
    assert "warning" not in ev.summary_dict()["judged@5"]  # 0.625 >= 0.5
    (irm[0].parent / "sparse.txt").write_text("0 0 D0 0\n1 0 D0 1\n")
    sparse = evaluate_trec(irm[0].parent / "sparse.txt", irm[1], ["judged@5"])
    assert "may be missing labels" in sparse.summary_dict()["judged@5"]["warning"]
    assert main(["evaluate", str(irm[0].parent / "sparse.txt"), str(irm[1]), "-m", "judged@5"]) == 0
    assert "warning: judged@5: only 10% of the top 5 results have a judgment" in capsys.readouterr().out


# ---- input formats ------------------------------------------------------------------------------

def _as_beir(qrels_text):
    rows = [line.split() for line in qrels_text.splitlines()]
    return "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{r}\n" for q, _, d, r in rows)


def _as_json(qrels_text, run_text):
    qrels, run = {}, {}
    for q, _, d, r in (line.split() for line in qrels_text.splitlines()):
        qrels.setdefault(q, {})[d] = int(r)
    for q, _, d, _, s, _ in (line.split() for line in run_text.splitlines()):
        run.setdefault(q, {})[d] = float(s)
    return json.dumps(qrels), json.dumps(run)


def test_beir_json_gzip_and_dataframes_give_the_trec_numbers(tmp_path, irm):
    measures = ["ndcg@3", "mrr", "recall@2", "bpref", "judged@2"]
    expected = evaluate_trec(*irm, measures).to_dict(per_question=True)["per_query"]
    beir = tmp_path / "test.tsv"
    beir.write_text(_as_beir(IRM_QRELS))
    qrels_json, run_json = _as_json(IRM_QRELS, IRM_RUN)
    (tmp_path / "qrels.json").write_text(qrels_json)
    (tmp_path / "run.json.gz").write_bytes(gzip.compress(run_json.encode()))
    for qrels, run in ((beir, irm[1]), (tmp_path / "qrels.json", irm[1]), (beir, tmp_path / "run.json.gz"),
                       (tmp_path / "qrels.json", tmp_path / "run.json.gz")):
        ev = evaluate_trec(qrels, run, measures)
        assert ev.to_dict(per_question=True)["per_query"] == expected, (qrels, run)
        # the judgments are read once, whatever their format; a TREC run then goes to the columnar reader
        assert ev.settings["engine"] == ("fast/small" if run == irm[1] else "general")
    assert evaluate_trec(beir, irm[1], measures, qrels_format="beir").settings["qrels_format"] == "beir"
    # DataFrames with ir_measures' column names
    q = pd.DataFrame([line.split() for line in IRM_QRELS.splitlines()], columns=["query_id", "it", "doc_id", "relevance"])
    r = pd.DataFrame([line.split() for line in IRM_RUN.splitlines()],
                     columns=["query_id", "q0", "doc_id", "rank_in_file", "score", "tag"])
    ev = evaluate(q.astype({"relevance": int}).drop(columns="it"), r.astype({"score": float})[["query_id", "doc_id", "score"]],
                  measures, level="document")
    assert ev.to_dict(per_question=True)["per_query"] == expected


@pytest.mark.parametrize("name, text, fmt, message", [
    ("q.json", '{"q1": {"d1": 1.5}}', "json", r"question 'q1', document 'd1': relevance 1.5 is not an integer"),
    ("q.json", '{"q1": {"d1": 1, "d1": 0}}', "json", r"the key 'd1' appears twice"),
    ("q.json", '{"q1": {"d1": NaN}}', "json", r"NaN is not a JSON number"),
    ("q.json", '{"q1": ["d1"]}', "json", r"expected a JSON object \{question_id: \{doc_id: value\}\}"),
    ("q.json", '{"q 1": {"d1": 1}}', "json", r"question ID 'q 1' is empty or holds whitespace"),
    ("q.tsv", "query-id\tcorpus-id\tscore\nq1\td1\n", "beir", r"q.tsv:2: expected 3 tab-separated fields"),
    ("q.tsv", "query-id\tcorpus-id\tscore\nq1\td1\thigh\n", "beir", r"q.tsv:2: score 'high' is not an integer"),
    ("q.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t0\n", "beir", r"q.tsv:3: duplicate document 'd1'"),
    ("q.tsv", "qid\tdoc\nq1\td1\n", "beir", r"q.tsv:1: expected the BEIR header"),
])
def test_bad_qrels_in_other_formats(tmp_path, irm, name, text, fmt, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        evaluate_trec(path, irm[1], ["mrr"], qrels_format=fmt)


def test_bad_json_run(tmp_path, irm):
    path = tmp_path / "run.json"
    path.write_text('{"0": {"D0": "high"}}')
    with pytest.raises(InputError, match=r"question '0', document 'D0': score 'high' is not a finite number"):
        evaluate_trec(irm[0], path, ["mrr"])


# ---- compare ------------------------------------------------------------------------------------

def test_compare_gives_the_stats_module_numbers(tmp_path, capsys):
    from test_trec_oracle import merged_cases, write_files

    qrels, run_a = merged_cases(range(4))
    _, run_b = merged_cases(range(10, 14))
    _, run_c = merged_cases(range(20, 24))
    qp, ra = write_files(tmp_path, qrels, run_a)
    rb, rc = tmp_path / "b.txt", tmp_path / "c.txt"
    for path, run in ((rb, run_b), (rc, run_c)):
        path.write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
    result = compare_runs(qp, [ra, rb, rc], ["mrr", "ndcg@5"], n_resamples=2000)
    base = evaluate_trec(qp, ra, ["mrr", "ndcg@5"])
    others = {name: evaluate_trec(qp, path, ["mrr", "ndcg@5"]) for name, path in (("b", rb), ("c", rc))}
    expected = compare_to_baseline(pd.Series(base.values["mrr"], index=list(base.questions)),
                                   {n: pd.Series(e.values["mrr"], index=list(e.questions)) for n, e in others.items()},
                                   n_resamples=2000)
    for name in ("b", "c"):
        row = result.table.loc[(name, "mrr")]
        assert row["delta"] == expected.loc[name, "mean_diff"] and row["p_holm"] == expected.loc[name, "p_holm"]
        assert (row["ci_low"], row["ci_high"]) == (expected.loc[name, "ci_low"], expected.loc[name, "ci_high"])
    assert main(["compare", str(qp), str(ra), str(rb), str(rc), "-m", "mrr", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"] == "run" and set(data["runs"]) == {"run", "b", "c"}
    assert data["runs"]["b"]["mrr"]["p_holm"] is not None and data["runs"]["run"]["mrr"]["delta"] is None
    assert main(["compare", str(qp), str(ra), str(rb), "-m", "mrr", "--format", "trec"]) == 0
    assert [line.split("\t")[1] for line in capsys.readouterr().out.splitlines()] == ["run", "b"]
    assert main(["compare", str(qp), str(ra), "-m", "mrr"]) == 2


def test_compare_numbers_two_runs_of_the_same_file_name_run_and_run_2(tmp_path):
    from test_trec_oracle import merged_cases, write_files

    qrels, run_a = merged_cases(range(4))
    qp, ra = write_files(tmp_path, qrels, run_a)
    again = tmp_path / "again"
    again.mkdir()
    rb = again / ra.name
    rb.write_text(ra.read_text())
    result = compare_runs(qp, [ra, rb], ["mrr"], n_resamples=200)
    assert list(result.evaluations) == ["run", "run-2"]
