"""The fast TREC path gives exactly the general path's values, and steps aside for anything unusual."""

import json
import random

import numpy as np
import pytest

from rag_metrics import evaluate
from rag_metrics.cli import main
from rag_metrics.measures.fast import FastPathUnavailable, evaluate_trec_fast
from rag_metrics.measures.registry import parse_measures
from rag_metrics.io.trec import read_qrels, read_run

MEASURES = parse_measures(["recall@5", "precision@3", "hit@1", "mrr", "mrr@3", "ndcg@5", "ndcg", "map", "map@3"])


def write_case(tmp_path, seed, *, sort_scores=True, contiguous=True, sep=" "):
    rng = random.Random(seed)
    qrels_lines, run_lines = [], []
    questions = [f"q{i}" for i in range(60)]
    for q in questions:
        docs = [f"d{d}" for d in rng.sample(range(40), rng.randint(0, 25))]
        scores = [rng.choice([1.0, 1.5, 2.0, 2.5]) if rng.random() < 0.5 else round(rng.uniform(0, 5), 2) for _ in docs]
        pairs = list(zip(docs, scores))
        if sort_scores:
            pairs.sort(key=lambda x: -x[1])  # ties left in arbitrary order: the reader must fix them
        run_lines += [f"{q}{sep}Q0{sep}{d}{sep}{i}{sep}{s}{sep}tag\n" for i, (d, s) in enumerate(pairs, 1)]
        if rng.random() < 0.9:
            judged = rng.sample(range(40), rng.randint(1, 10))
            qrels_lines += [f"{q} 0 d{d} {rng.choice([-1, 0, 1, 2, 3])}\n" for d in judged]
    run_lines.append("zz Q0 d1 1 1.0 tag\n")  # a question unknown to the qrels
    if not contiguous:
        q, _, _, rank, score, tag = run_lines[0].split()  # the first question again, after the others
        run_lines.append(f"{q} Q0 dx {rank} {score} {tag}\n")
    qp, rp = tmp_path / f"qrels{seed}.txt", tmp_path / f"run{seed}.txt"
    qp.write_text("".join(qrels_lines))
    rp.write_text("".join(run_lines))
    return qp, rp


def general(qp, rp):
    ev = evaluate(read_qrels(qp).rename(columns={"doc_id": "chunk_id"}),
                  read_run(rp).rename(columns={"doc_id": "chunk_id"}), MEASURES, level="chunk")
    return ev


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("route", ["small", "blocks-300", "blocks-1M"])
@pytest.mark.parametrize("sort_scores", [True, False])
def test_fast_equals_general(tmp_path, seed, route, sort_scores):
    qp, rp = write_case(tmp_path, seed, sort_scores=sort_scores)
    block_bytes = {"small": 1 << 20, "blocks-300": 300, "blocks-1M": 1 << 20}[route]
    fast = evaluate_trec_fast(qp, rp, MEASURES, block_bytes=block_bytes, small=route == "small")
    assert fast.path == ("fast/small" if route == "small" else "fast")
    ev = general(qp, rp)
    assert fast.questions == list(ev.per_question.index)
    for m in MEASURES:
        np.testing.assert_array_equal(fast.values[str(m)], ev.per_question[str(m)].to_numpy())
    np.testing.assert_array_equal(fast.values["n_retrieved"], ev.per_question["n_retrieved"].to_numpy())
    assert fast.unknown_questions == list(ev.unknown_questions) and fast.unknown_questions[-1] == "zz"


@pytest.mark.parametrize("make, reason", [
    (lambda tmp: write_case(tmp, 1, sep="\t"), "run: "),
    (lambda tmp: write_case(tmp, 1, contiguous=False), "not contiguous"),
])
def test_unusual_files_step_aside(tmp_path, make, reason):
    qp, rp = make(tmp_path)
    with pytest.raises(FastPathUnavailable, match=reason):
        evaluate_trec_fast(qp, rp, MEASURES, small=False)
    if reason == "run: ":  # tabs: the small route steps aside too
        with pytest.raises(FastPathUnavailable):
            evaluate_trec_fast(qp, rp, MEASURES)


def test_small_route_takes_non_contiguous_questions(tmp_path):
    qp, rp = write_case(tmp_path, 3, contiguous=False)
    fast = evaluate_trec_fast(qp, rp, MEASURES)
    ev = general(qp, rp)
    assert fast.path == "fast/small"
    for m in MEASURES:
        np.testing.assert_array_equal(fast.values[str(m)], ev.per_question[str(m)].to_numpy())


def test_cli_falls_back_with_the_same_numbers(tmp_path, capsys):
    qp, rp = write_case(tmp_path, 2)
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text(rp.read_text().replace(" ", "\t"))
    outputs = {}
    for name, path in (("fast", rp), ("tabs", tabbed)):
        assert main(["evaluate", str(qp), str(path), "-m", "ndcg@5", "-m", "mrr", "--format", "json", "--per-query"]) == 0
        outputs[name] = json.loads(capsys.readouterr().out)
    assert outputs["fast"]["settings"]["engine"] == "fast/small" and outputs["tabs"]["settings"]["engine"] == "general"
    assert outputs["fast"]["per_query"] == outputs["tabs"]["per_query"]
    assert outputs["fast"]["summary"] == outputs["tabs"]["summary"]


@pytest.mark.parametrize("bad, message", [
    ("q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n", ":2: duplicate document 'd1' for question 'q1'"),
    ("q1 Q0 d1 1 nan x\n", ":1: score 'nan' is not a finite number"),
    ("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0\n", ":2: expected 6 fields"),
])
def test_bad_files_still_name_the_line(tmp_path, capsys, bad, message):
    qp = tmp_path / "q.txt"
    qp.write_text("q1 0 d1 1\n")
    rp = tmp_path / "r.txt"
    rp.write_text(bad)
    assert main(["evaluate", str(qp), str(rp)]) == 2
    assert message in capsys.readouterr().err


def test_hash_collisions_are_filtered_on_the_exact_strings(tmp_path, monkeypatch):
    """Every (question, document) key collides: the join must keep only the exact string matches."""
    import polars as pl

    from rag_metrics.measures import fast as fast_module

    qp, rp = write_case(tmp_path, 5)
    expected = general(qp, rp)
    monkeypatch.setattr(fast_module, "_key_expr", lambda pl_, doc_hash=None: pl.lit(7, dtype=pl.UInt64))
    got = evaluate_trec_fast(qp, rp, MEASURES, small=False)
    assert got.path == "fast"
    for m in MEASURES:
        np.testing.assert_array_equal(got.values[str(m)], expected.per_question[str(m)].to_numpy())
