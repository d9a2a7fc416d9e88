"""Dask: the same numbers as the in-memory path, on a dask.distributed LocalCluster."""

import json

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

from rag_metrics import evaluate, evaluate_trec  # noqa: E402
from rag_metrics.cli import main  # noqa: E402
from rag_metrics.measures.evaluator import evaluate_dask  # noqa: E402

MEASURES = ["recall@3", "precision@2", "hit@1", "mrr", "ndcg@3", "map", "rprec", "bpref", "f1@2", "hits@3", "judged@3",
            "num_rel", "num_ret"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def frames(seed=0, n=40):
    rng = np.random.default_rng(seed)
    golden_rows, run_rows = [], []
    for i in range(n):
        q = f"q{i}"
        gold = rng.choice(20, size=rng.integers(0, 4), replace=False)
        golden_rows += [{"question_id": q, "doc_id": f"d{d}", "relevance": int(rng.integers(1, 4)), "type": "t"} for d in gold]
        if not len(gold):
            golden_rows.append({"question_id": q, "doc_id": None, "relevance": None, "type": "none"})
        if i % 7 != 3:  # some questions have no result at all
            chunks = rng.choice(60, size=rng.integers(1, 8), replace=False)
            run_rows += [{"question_id": q, "rank": r + 1, "chunk_id": f"c{c}", "doc_id": f"d{c % 20}"}
                         for r, c in enumerate(chunks)]
    run_rows.append({"question_id": "zz", "rank": 1, "chunk_id": "c1", "doc_id": "d1"})
    return pd.DataFrame(golden_rows), pd.DataFrame(run_rows)


def test_dask_equals_in_memory(client):
    golden, run = frames()
    expected = evaluate(golden, run, MEASURES)
    # rows of one question spread over partitions: evaluate_dask shuffles by question first
    ddf = dd.from_pandas(run.sample(frac=1.0, random_state=1), npartitions=4)
    got = evaluate_dask(golden, ddf, MEASURES)
    pd.testing.assert_frame_equal(got.per_question[expected.per_question.columns], expected.per_question,
                                  check_exact=True)
    pd.testing.assert_frame_equal(got.summary, expected.summary, check_exact=True)
    assert got.unknown_questions == ("zz",)


def test_refuses_split_questions_when_asked(client):
    golden, run = frames(1)
    ddf = dd.from_pandas(run.sample(frac=1.0, random_state=2), npartitions=3)
    with pytest.raises(ValueError, match="partition the run by question_id"):
        evaluate_dask(golden, ddf, MEASURES, shuffle=False)


def test_cli_engine_dask_reads_many_files(tmp_path, client, capsys):
    qrels = "".join(f"q{i} 0 d{j} {(i + j) % 3}\n" for i in range(12) for j in range(5))
    (tmp_path / "qrels.txt").write_text(qrels)
    lines = [f"q{i} Q0 d{j} {j} {round(10 - j * 0.5, 1) if j != 3 else 8.5} tag\n" for i in range(12) for j in range(9)]
    # three log files; question q5 is split across two of them
    (tmp_path / "run-a.txt").write_text("".join(lines[:50]))
    (tmp_path / "run-b.txt").write_text("".join(lines[50:]))
    (tmp_path / "run-c.txt").write_text("zz Q0 d1 1 1.0 tag\n")
    (tmp_path / "whole.txt").write_text("".join(lines) + "zz Q0 d1 1 1.0 tag\n")
    args = ["-m", "ndcg@5", "-m", "mrr", "-m", "recall@3", "--format", "json", "--per-question"]
    assert main(["evaluate", str(tmp_path / "qrels.txt"), str(tmp_path / "run-*.txt"), "--engine", "dask",
                 "--scheduler", client.scheduler.address, *args]) == 0
    on_dask = json.loads(capsys.readouterr().out)
    assert main(["evaluate", str(tmp_path / "qrels.txt"), str(tmp_path / "whole.txt"), *args]) == 0
    in_memory = json.loads(capsys.readouterr().out)
    assert on_dask["per_query"] == in_memory["per_query"]
    assert on_dask["summary"] == in_memory["summary"]
    assert on_dask["unknown_questions"] == ["zz"] and on_dask["settings"]["engine"] == "dask"


ODD = ["plain", "BOM in run", "CRLF", "tabs", "latin-1 id", "no-break space", "underscore score", "ties",
       "duplicate document", "non-contiguous question", "empty run", "inf score"]


def test_dask_reads_odd_files_like_the_general_path(tmp_path, client, capsys):
    from test_readers import CASES, outcome

    cases = {name: (q, r) for name, q, r in CASES}
    for name in ODD:
        qrels, run = cases[name]
        q, r = tmp_path / f"{name}.qrels", tmp_path / f"{name}.run"
        q.write_bytes(qrels)
        r.write_bytes(run)
        argv = ["evaluate", str(q), str(r), "-m", "mrr", "-m", "recall@2", "--format", "json", "--per-question"]
        general = outcome(capsys, [*argv, "--engine", "general"])
        on_dask = outcome(capsys, [*argv, "--engine", "dask", "--scheduler", client.scheduler.address])
        assert on_dask == general, name


def test_dask_names_the_file_of_a_duplicate_and_keeps_file_order(tmp_path, client, capsys):
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "run-a.txt").write_text("zz2 Q0 d1 1 1.0 t\nq1 Q0 d1 1 2.0 t\n")
    (tmp_path / "run-b.txt").write_text("zz1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 1.0 t\n")
    code = main(["evaluate", str(tmp_path / "q"), str(tmp_path / "run-*.txt"), "--engine", "dask",
                 "--scheduler", client.scheduler.address])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path / 'run-b.txt'}:2: duplicate document 'd1' for question 'q1' (also at " \
        f"{tmp_path / 'run-a.txt'}:2)" in err
    (tmp_path / "run-b.txt").write_text("zz1 Q0 d1 1 1.0 t\nq1 Q0 d3 2 1.0 t\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "run-*.txt"), "--engine", "dask",
                 "--scheduler", client.scheduler.address, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["unknown_questions"] == ["zz2", "zz1"]  # file order, as in memory


def test_a_bad_line_on_dask_is_one_clean_message(tmp_path, capfd):
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 abc t\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "run.txt"), "--engine", "dask"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [f"rag-metrics evaluate: error: {tmp_path / 'run.txt'}:2: score 'abc' is not a finite number "
                   "(expected e.g. 12, -0.5, 1.5e-3)."], err


@pytest.mark.parametrize("order", ["cut_then_dedup", "dedup_then_cut"])
def test_dask_collapses_chunks_with_the_rank_of_its_order(client, order):
    """Document level from chunks on Dask: the same document rank as in memory (test_document_rank.py)."""
    golden, run = frames(2)
    doc_map = dict(zip(run["chunk_id"], run["doc_id"]))
    chunks = run.drop(columns="doc_id")
    expected = evaluate(golden, chunks, MEASURES, doc_map=doc_map, order=order)
    got = evaluate_dask(golden, dd.from_pandas(chunks, npartitions=3), MEASURES, doc_map=doc_map, order=order)
    pd.testing.assert_frame_equal(got.per_question[expected.per_question.columns], expected.per_question,
                                  check_exact=True)


def test_a_prepared_evaluator_sends_dask_frames_to_the_cluster(client):
    from rag_metrics import evaluator

    golden, run = frames(3)
    prepared = evaluator(golden, MEASURES)
    expected = prepared.evaluate(run)
    got = prepared.evaluate(dd.from_pandas(run, npartitions=2))
    assert got.settings["engine"] == "dask" and expected.settings["engine"] == "dataframe"
    pd.testing.assert_frame_equal(got.per_question[expected.per_question.columns], expected.per_question,
                                  check_exact=True)


def test_evaluate_log_on_dask_equals_one_process(client, tmp_path):
    """The experiment evaluation partitioned by question on a LocalCluster: the same judged rows, per-question values
    and summaries as in one process -- every judge, document and chunk level, missing and unknown questions."""
    from dataclasses import replace

    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.io.corpus import data_dir, load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import load_log

    corpus = load_corpus(sample=True)
    golden = load_golden(corpus=corpus, sample=True)
    lines = (data_dir() / "examples" / "bm25_c400o100.jsonl").read_text(encoding="utf-8").splitlines()
    unknown = json.dumps({"question_id": "zz", "question": "not in the golden set", "retrieved": []})
    (tmp_path / "log.jsonl").write_text("\n".join(lines[3:] + [unknown]) + "\n", encoding="utf-8")  # 3 missing
    log = load_log(tmp_path / "log.jsonl")
    picks = log.run[log.run["rank"] == 2][["question_id", "chunk_id"]].head(20)
    golden = replace(golden, gold_chunks=picks.reset_index(drop=True))  # chunk-level gold for 20 questions
    local = evaluate_log(golden, log, corpus, ks=(1, 3, 5))
    on_dask = evaluate_log(golden, log, corpus, ks=(1, 3, 5), engine="dask")
    assert set(local.judged) == set(on_dask.judged) and len(local.judged) >= 3
    for name in local.judged:
        pd.testing.assert_frame_equal(on_dask.judged[name], local.judged[name])
    for a, b in [(local.pages[n], on_dask.pages[n]) for n in local.pages] + [(local.document, on_dask.document),
                                                                             (local.chunk, on_dask.chunk)]:
        pd.testing.assert_frame_equal(b.per_question, a.per_question, check_exact=True)
        assert b.to_dict() == a.to_dict()
    pd.testing.assert_frame_equal(on_dask.failures, local.failures)
    assert "satisfies_kept" in local.judged["overlap"].columns  # the furniture-kept ruler from the same pass, both ways
    assert on_dask.raw_overlap()[1].to_dict() == local.raw_overlap()[1].to_dict()
    assert on_dask.missing_questions == local.missing_questions and len(local.missing_questions) == 3
    assert on_dask.unknown_questions == local.unknown_questions == ["zz"]
    with pytest.raises(ValueError, match="'engine' parameter of evaluate_log"):
        evaluate_log(golden, log, corpus, engine="spark")


def test_a_split_run_gives_the_numbers_of_one_process(tmp_path, client, monkeypatch):
    """The out-of-core path: byte ranges of a few lines (so that questions straddle ranges), lines bucketed by
    question on the workers, each bucket evaluated there; judged questions with no result, run questions the qrels
    lack, a byte-order mark, tabs in the qrels and ties all give what one process gives."""
    from rag_metrics.io.partitions import line_ranges, question_buckets
    from rag_metrics.measures import distributed as dist

    rng = np.random.default_rng(3)
    qrels = "\ufeff" + "".join(f"q{i}\t0\td{j}\t{int(rng.integers(0, 3))}\n" for i in range(30)
                               for j in rng.choice(15, 4, replace=False))
    run = "\ufeff" + "".join(f"q{i} Q0 d{j} {r} {rng.choice([1.0, 2.0, 2.5])} t\n" for i in range(30) if i % 9
                             for r, j in enumerate(rng.choice(15, 8, replace=False), 1))
    run += "zz Q0 d1 1 1.0 t\nyy Q0 d2 1 1.0 t\n \t q1 Q0 d99 9 0.5 t\n"  # an indented line of q1, after others
    (tmp_path / "qrels.txt").write_text(qrels, encoding="utf-8")
    (tmp_path / "run.txt").write_text(run, encoding="utf-8")
    expected = evaluate_trec(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), MEASURES)
    monkeypatch.setattr(dist, "SPLIT_BYTES", 0)
    monkeypatch.setattr(dist, "BUCKET_BYTES", 200)
    monkeypatch.setattr("rag_metrics.io.partitions.PART_BYTES", 300)
    assert len(line_ranges(tmp_path / "run.txt", 300)) > 5
    got = evaluate_trec(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), MEASURES, engine="dask",
                        scheduler=client.scheduler.address)
    assert got.settings["engine"] == "dask"
    pd.testing.assert_frame_equal(got.per_question, expected.per_question, check_exact=True)
    pd.testing.assert_frame_equal(got.summary, expected.summary, check_exact=True)
    assert set(got.unknown_questions) == {"zz", "yy"}
    # the bucket is a function of the question ID alone, whatever follows it
    assert question_buckets(b"q1 Q0 a 1 1 t\nq1\t0\tb\t1\n  q1 x\nq2 x\n", 7)[:3].tolist() == [
        question_buckets(b"q1 z\n", 7)[0]] * 3


def test_line_ranges_cover_the_file_in_whole_lines(tmp_path):
    from rag_metrics.io.partitions import line_ranges

    data = b"".join(b"x" * (i % 7) + b"\n" for i in range(200)) + b"last"
    (tmp_path / "f").write_bytes(data)
    for size in (1, 5, 64, 10_000):
        ranges = line_ranges(tmp_path / "f", size)
        assert b"".join(data[a:b] for a, b in ranges) == data
        assert all(a == 0 or data[a - 1:a] == b"\n" for a, _ in ranges)
