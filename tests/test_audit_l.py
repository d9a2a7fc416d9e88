"""The seven mutants of the independent audit L (docs/mutant_audit.md) that their modules' tests let through, each
now pinned at the input the auditor named -- tests written after the audit was recorded, so they do not count in its
score."""

import json

import numpy as np
import pytest

from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.csvfile import read_csv
from rag_metrics.io.golden import load_golden

DATA = data_dir()


def test_l08_header_cells_are_read_without_the_spaces_around_them(tmp_path):
    path = tmp_path / "golden.csv"
    path.write_text("question_id, question ,doc_id, page\nq1,What?,expense_policy,3\n", encoding="utf-8")
    header, rows = read_csv(path, "a golden set")
    assert header == ["question_id", "question", "doc_id", "page"] and rows[0][1]["question"] == "What?"
    assert load_golden(path).questions.at["q1", "question"] == "What?"


def test_l19_the_spread_of_differences_is_the_sample_standard_deviation():
    from scipy import stats

    from rag_metrics.stats.planning import questions_needed, sample_size

    a, b = [0.5, 0.2, 0.9, 0.4, 0.3, 0.6], [0.7, 0.2, 1.0, 0.9, 0.35, 0.6]
    plan = sample_size(a, b, 0.1)
    d = np.subtract(b, a)
    assert plan.sd_diff == pytest.approx(float(np.std(d, ddof=1))) == pytest.approx(stats.tstd(d))
    assert plan.questions == questions_needed(0.1, float(np.std(d, ddof=1)), discordant_rate=plan.discordant_rate)
    assert plan.questions > questions_needed(0.1, float(np.std(d, ddof=0)), discordant_rate=plan.discordant_rate)


@pytest.mark.parametrize("name, label", [("bm25.txt.gz", "bm25"), ("dense.run", "dense"), ("x.trec.gz", "x"),
                                         ("plain", "plain")])
def test_l22_a_run_is_labelled_by_its_name_without_its_suffixes(tmp_path, name, label):
    from rag_metrics.experiment.compare import compare_runs

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n", encoding="utf-8")
    run = tmp_path / name
    body = b"q1 Q0 d1 1 2.0 t\nq2 Q0 d9 1 1.0 t\n"
    if name.endswith(".gz"):
        import gzip
        body = gzip.compress(body)
    run.write_bytes(body)
    other = tmp_path / "other.txt"
    other.write_text("q1 Q0 d9 1 2.0 t\nq2 Q0 d2 1 1.0 t\n", encoding="utf-8")
    table = compare_runs(qrels, [run, other], ["hit@1"], n_resamples=200)
    assert list(table.wide().index) == [label, "other"]


def test_l24_labelled_is_no_slice():
    from rag_metrics.experiment.slices import question_attributes

    columns = list(question_attributes(load_golden(sample=True)).columns)
    assert "labelled" not in columns and "question" not in columns and "answer" not in columns
    assert columns[:2] == ["type", "document"]


def test_l25_a_drill_down_highlights_text_on_the_page_after_a_gold_page(tmp_path):
    """An item whose text lies on gold page + 1 (inside the window of 1) shares it with that page: highlighted."""
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.io.logs import load_log

    corpus = load_corpus(DATA / "corpus")
    golden = load_golden(DATA / "golden.jsonl", corpus=corpus)
    gold = golden.pages_by_question()["q001"]
    doc, page = gold[0]
    text = corpus.page_text(doc, page + 1)
    piece = " ".join(text.split())[40:140]
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"question_id": "q001", "retrieved": [{"doc_id": doc, "text": piece, "score": 1}]}))
    assert (doc, page + 1) not in gold
    item = evaluate_log(golden, load_log(path), corpus).explain_data("q001")["items"][0]
    assert [kind for _, kind in item["segments"] if kind], item["segments"]


def test_l30_the_gain_option_reaches_the_evaluation(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\n", encoding="utf-8")
    values = {}
    for gain in ("linear", "exponential"):
        assert main(["evaluate", str(qrels), str(run), "-m", "ndcg@2", "--gain", gain]) == 0
        values[gain] = capsys.readouterr().out
    # linear: (1 + 2/log2 3) / (2 + 1/log2 3) = 0.8597; exponential: (1 + 3/log2 3) / (3 + 1/log2 3) = 0.7967
    assert "0.8597" in values["linear"] and "0.7967" in values["exponential"]
