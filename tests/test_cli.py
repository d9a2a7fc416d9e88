"""The evaluate command: output formats, and every bad input exits non-zero naming file and line."""

import json

import pytest

from rag_metrics.cli import main

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d9 0\nq3 0 d4 1\n"
# q1: d3 (2.0) and d1 (2.0) tie -> d3 first (document ID descending), then d2
RUN = "q1 Q0 d1 1 2.0 x\nq1 Q0 d3 2 2.0 x\nq1 Q0 d2 3 1.0 x\nq2 Q0 d9 1 1.0 x\nq7 Q0 d1 1 1.0 x\n"


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_shape(files, capsys):
    code, out, _ = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "recall@1",
                           "-m", "P@2", "-m", "mrr", "--format", "json", "--per-question")
    assert code == 0
    data = json.loads(out)
    assert data["summary"]["recall@1"] == {"mean": 0.0, "evaluated": 2, "excluded": 1, "excluded_ids": ["q2"]}
    assert data["summary"]["precision@2"]["evaluated"] == 3  # defined even without relevant gold
    assert data["per_query"]["q1"]["mrr"] == 0.5  # d3 (non-relevant) wins the tie
    assert data["per_query"]["q2"]["mrr"] is None  # no relevant document: undefined
    assert data["per_query"]["q3"]["recall@1"] == 0.0  # judged, not retrieved: empty ranking
    assert data["unknown_questions"] == ["q7"]


def test_order_by_rank_uses_the_rank_column(files, capsys):
    _, out, _ = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "mrr",
                        "--format", "json", "--per-question", "--order-by", "rank")
    assert json.loads(out)["per_query"]["q1"]["mrr"] == 1.0


def test_table_output_lists_unknown_questions(files, capsys):
    code, out, _ = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "hit@2")
    assert code == 0
    assert "hit@2" in out and "0.5000" in out
    assert "1 question(s) in the run but not in the qrels, not used: q7" in out


def test_document_unit_with_doc_map(files, capsys):
    qrels = files("q", "q 0 manual 1\nq 0 faq 1\n")
    run = files("r", "".join(f"q Q0 {c} {i} {10 - i} x\n" for i, c in enumerate(["m1", "m2", "m3", "f1", "t1"], 1)))
    dmap = files("m", "m1\tmanual\nm2\tmanual\nm3\tmanual\nf1\tfaq\nt1\tterms\n")
    for order, expected in (("cut_then_dedup", 0.5), ("dedup_then_cut", 1.0)):
        _, out, _ = run_cli(capsys, "evaluate", qrels, run, "-m", "recall@3", "--unit", "document",
                            "--doc-map", dmap, "--order", order, "--format", "json")
        assert json.loads(out)["summary"]["recall@3"]["mean"] == expected


BAD = [
    # (file to corrupt, content, expected message fragment, line)
    ("run", "q1 Q0 d1 1 2.0\n", "expected 6 fields", 1),
    ("run", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 1 abc x\n", "score 'abc' is not a finite number", 2),
    ("run", "q1 Q0 d1 1 nan x\n", "score 'nan' is not a finite number", 1),
    ("run", "q1 Q0 d1 1 inf x\n", "score 'inf' is not a finite number", 1),
    ("run", "q1 Q0 d1 1 -Infinity x\n", "score '-Infinity' is not a finite number", 1),
    ("run", "q1 Q0 d1 one 2.0 x\n", "rank 'one' is not an integer", 1),
    ("run", "q1 Q0 d1 1 2.0 x\n\nq1 Q0 d1 2 1.0 x\n", "duplicate document 'd1' for question 'q1' (also at line 1)", 3),
    ("run", "", "file is empty", None),
    ("run", "\n  \n", "file is empty", None),
    ("qrels", "q1 0 d1\n", "expected 4 fields", 1),
    ("qrels", "q1 0 d1 1\nq1 0 d2 high\n", "relevance label 'high' is not an integer", 2),
    ("qrels", "q1 0 d1 1.5\n", "relevance label '1.5' is not an integer", 1),
    ("qrels", "q1 0 d1 1\nq1 0 d1 0\n", "duplicate document 'd1' for question 'q1' (also at line 1)", 2),
    ("qrels", "", "file is empty", None),
]


@pytest.mark.parametrize("which, content, message, line", BAD)
def test_bad_input_exits_non_zero_naming_file_and_line(files, capsys, which, content, message, line):
    qrels = files("qrels.txt", content if which == "qrels" else QRELS)
    run = files("run.txt", content if which == "run" else RUN)
    code, out, err = run_cli(capsys, "evaluate", qrels, run)
    assert code == 2 and out == ""
    bad_path = qrels if which == "qrels" else run
    assert (f"{bad_path}:{line}: " if line else f"{bad_path}: ") in err
    assert message in err


def test_missing_file(files, capsys, tmp_path):
    code, _, err = run_cli(capsys, "evaluate", str(tmp_path / "nope.txt"), files("r", RUN))
    assert code == 2 and "nope.txt: file not found; expected a TREC qrels file" in err


def test_duplicate_rank_with_order_by_rank(files, capsys):
    run = files("r", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 1 1.0 x\n")
    code, _, err = run_cli(capsys, "evaluate", files("q", QRELS), run, "--order-by", "rank")
    assert code == 2 and f"{run}:2: question 'q1' has rank 1 twice (lines 1 and 2)" in err


def test_doc_map_errors(files, capsys):
    qrels = files("q", "q 0 manual 1\n")
    run = files("r", "q Q0 m1 1 2.0 x\nq Q0 zz 2 1.0 x\n")
    dmap = files("m", "m1\tmanual\n")
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "--unit", "document", "--doc-map", dmap)
    assert code == 2 and f"{run}:2: unknown chunk ID 'zz'" in err
    bad_map = files("m2", "m1\tmanual\nm1\tfaq\n")
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "--unit", "document", "--doc-map", bad_map)
    assert code == 2 and f"{bad_map}:2: chunk 'm1' is mapped twice (also at line 1)" in err
    code, _, err = run_cli(capsys, "evaluate", qrels, run, "--unit", "chunk", "--doc-map", dmap)
    assert code == 2 and "--doc-map maps chunks to documents: use it with --unit document" in err


def test_unknown_measure(files, capsys):
    code, _, err = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "recall")
    assert code == 2 and "Measure 'recall' needs a cutoff, e.g. recall@10" in err
    code, _, err = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "f2@3")
    assert code == 2 and "Unknown measure 'f2@3'" in err


def test_the_level_is_what_the_qrels_judge(files, capsys):
    """TREC qrels judge documents: the default level is document; --unit chunk says the IDs are chunks."""
    for argv, level in (([], "document"), (["--unit", "chunk"], "chunk"), (["--unit", "document"], "document")):
        _, out, _ = run_cli(capsys, "evaluate", files("q", QRELS), files("r", RUN), "-m", "mrr", "--format", "json",
                            *argv)
        data = json.loads(out)
        assert data["settings"]["level"] == level and data["summary"]["mrr"]["mean"] == 0.25


def test_the_evaluate_parser_alone_reads_what_the_whole_parser_reads(capsys):
    """`rag-metrics evaluate` builds its own subcommand only (start-up time); the arguments read are the same."""
    from rag_metrics.cli import _parser

    for argv in (["evaluate", "q", "r"], ["evaluate", "q", "r", "-m", "mrr", "-m", "P@5", "--format", "json",
                                           "--unit", "chunk", "--engine", "general", "--min-rel", "2"]):
        assert vars(_parser(only="evaluate").parse_args(argv)) == vars(_parser().parse_args(argv))
    with pytest.raises(SystemExit):
        _parser(only="evaluate").parse_args(["evaluate", "q", "r", "--format", "xml"])
    assert "rag-metrics evaluate: error: argument --format: invalid choice: 'xml'" in capsys.readouterr().err
