"""The columnar TREC readers give exactly the general reader's values, and step aside for anything unusual."""

import json
import random
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rag_metrics import Qrels, evaluate, evaluate_trec, evaluator
from rag_metrics.cli import main
from rag_metrics.io import trec_blocks, trec_fast, trec_tokens
from rag_metrics.io.trec import INT_SYNTAX, SCORE_SYNTAX, read_qrels, read_run
from rag_metrics.io.trec_fast import FastPathUnavailable, code_run_fast
from rag_metrics.measures.registry import parse_measures

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


def evaluate_trec_fast(qp, rp, measures, *, min_rel=1, doc_map=None, level="chunk", **kwargs):
    """The columnar readers alone (no fallback): the judgments prepared, the run coded as it is read."""
    prepared = evaluator(Qrels.from_file(qp), measures, level=level, min_rel=min_rel, doc_map=doc_map)
    return prepared.evaluation(code_run_fast(prepared.qrels, rp, doc_map=prepared.doc_map, **kwargs))


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
    assert fast.settings["engine"] == ("fast/small" if route == "small" else "fast")
    ev = general(qp, rp)
    assert list(fast.questions) == list(ev.per_question.index)
    for m in MEASURES:
        np.testing.assert_array_equal(fast.values[str(m)], ev.per_question[str(m)].to_numpy())
    np.testing.assert_array_equal(fast.n_retrieved, ev.per_question["n_retrieved"].to_numpy())
    assert fast.unknown_questions == ev.unknown_questions and fast.unknown_questions[-1] == "zz"


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
    assert fast.settings["engine"] == "fast/small"
    for m in MEASURES:
        np.testing.assert_array_equal(fast.values[str(m)], ev.per_question[str(m)].to_numpy())


def test_cli_falls_back_with_the_same_numbers(tmp_path, capsys):
    qp, rp = write_case(tmp_path, 2)
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text(rp.read_text().replace(" ", "\t"))
    outputs = {}
    for name, path in (("fast", rp), ("tabs", tabbed)):
        assert main(["evaluate", str(qp), str(path), "-m", "ndcg@5", "-m", "mrr", "--format", "json", "--per-question"]) == 0
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
    """The block reader joins on (question, document-hash) keys. Here every document of a question gets one key: with
    one judgment per question each run row is a candidate, and only the exact ID may match; with two, the judgments
    collide and the file goes to another reader -- the same numbers either way."""
    rng = random.Random(9)
    one = "".join(f"q{q} 0 d{rng.randrange(30)} {rng.choice([0, 1, 2])}\n" for q in range(40))
    run = "".join(f"q{q} Q0 d{d} {r} {rng.choice([1.0, 2.0, 3.0])} t\n" for q in range(40)
                  for r, d in enumerate(rng.sample(range(30), 12), 1))
    (tmp_path / "q1").write_text(one)
    (tmp_path / "q2").write_text(one + "".join(f"q{q} 0 d{q % 30}x 1\n" for q in range(40)))
    (tmp_path / "r").write_text(run)
    expected = {name: general(tmp_path / name, tmp_path / "r") for name in ("q1", "q2")}
    monkeypatch.setattr(trec_blocks, "mix", lambda doc_hash, question: question.astype(np.uint64) * np.uint64(3))
    got = evaluate_trec_fast(tmp_path / "q1", tmp_path / "r", MEASURES, small=False)
    assert got.settings["engine"] == "fast"
    for m in MEASURES:
        np.testing.assert_array_equal(got.values[str(m)], expected["q1"].per_question[str(m)].to_numpy())
    with pytest.raises(FastPathUnavailable, match="two judgments with one key"):
        evaluate_trec_fast(tmp_path / "q2", tmp_path / "r", MEASURES, small=False)
    monkeypatch.setattr(trec_fast, "SMALL_FILE_BYTES", 0)
    ev = evaluate_trec(tmp_path / "q2", tmp_path / "r", MEASURES, level="chunk")
    assert ev.settings["engine"] == "general"
    for m in MEASURES:
        np.testing.assert_array_equal(ev.values[str(m)], expected["q2"].per_question[str(m)].to_numpy())


def test_small_route_keys_documents_and_steps_aside_on_any_collision(tmp_path, monkeypatch):
    """The small route finds repeated documents by their 64-bit keys; a collision (here every key equal) is a
    candidate only: the run goes to another reader, which gives the same numbers."""
    qp, rp = write_case(tmp_path, 6)
    expected = general(qp, rp)
    qrels = Qrels.from_file(qp)
    monkeypatch.setattr(trec_fast, "id_keys", lambda matrix, words=None: (np.zeros(len(matrix), np.uint64), False))
    with pytest.raises(FastPathUnavailable, match="duplicate document candidate"):
        trec_fast._code_small(qrels, rp, None)
    got = evaluate_trec(qp, rp, MEASURES, level="chunk")
    assert got.settings["engine"] == "fast"  # the block reader took it
    for m in MEASURES:
        np.testing.assert_array_equal(got.values[str(m)], expected.per_question[str(m)].to_numpy())


@pytest.mark.parametrize("prefix", ["", "document-of-the-corpus/", "x" * 30])
def test_long_ids_are_matched_exactly(tmp_path, prefix):
    """IDs longer than 8 bytes are keyed by a hash of their words; equal keys are checked on the bytes. IDs that
    share long prefixes, or differ only at the end, must still be told apart."""
    rng = random.Random(7)
    ids = [f"{prefix}{i}" for i in range(50)] + [f"{prefix}{i}x" for i in range(10)]
    qrels = "".join(f"q{q} 0 {d} {rng.choice([0, 1, 2])}\n" for q in range(20) for d in rng.sample(ids, 6))
    run = "".join(f"q{q} Q0 {d} {r} {rng.choice([1.0, 2.0, 3.5])} t\n" for q in range(20)
                  for r, d in enumerate(rng.sample(ids, 15), 1))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    fast = evaluate_trec(tmp_path / "q", tmp_path / "r", MEASURES)
    slow = evaluate_trec(tmp_path / "q", tmp_path / "r", MEASURES, engine="general")
    assert fast.settings["engine"] == "fast/small"
    assert fast.to_dict(per_question=True)["per_query"] == slow.to_dict(per_question=True)["per_query"]


def test_a_doc_map_on_the_small_route_equals_the_general_reader(tmp_path):
    """Chunks mapped to documents and collapsed (both orders) by the small-file route, against the general reader."""
    rng = random.Random(11)
    doc_map = {f"c{i}": f"d{i % 9}" for i in range(40)}
    qrels = "".join(f"q{q} 0 d{d} {rng.choice([0, 1, 2])}\n" for q in range(30) for d in rng.sample(range(12), 3))
    run = "".join(f"q{q} Q0 c{c} {r} {rng.choice([1.0, 2.0, round(rng.uniform(0, 3), 2)])} t\n"
                  for q in range(30) for r, c in enumerate(rng.sample(range(40), 12), 1))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    (tmp_path / "m").write_text("".join(f"{c}\t{d}\n" for c, d in doc_map.items()))
    names = ["hit@3", "recall@5", "precision@5", "mrr", "ndcg", "ndcg@5", "map", "rprec", "judged@5", "num_ret"]
    for order in ("cut_then_dedup", "dedup_then_cut"):
        fast = evaluate_trec(tmp_path / "q", tmp_path / "r", names, doc_map=tmp_path / "m", order=order)
        slow = evaluate_trec(tmp_path / "q", tmp_path / "r", names, doc_map=doc_map, order=order, engine="general")
        assert fast.settings["engine"] == "fast/small" and slow.settings["engine"] == "general"
        for m in names:
            np.testing.assert_array_equal(fast.values[m], slow.values[m], err_msg=f"{order} {m}")
    (tmp_path / "m").write_text("c0\td0\n")  # most chunks unknown: the general reader names the line
    with pytest.raises(ValueError, match=r"/r:\d+: unknown chunk ID"):
        evaluate_trec(tmp_path / "q", tmp_path / "r", names, doc_map=tmp_path / "m")


NUMBERISH = "0123456789+-.eE_xXinfaINFAd\u0661\uff11"
DECIMALS = st.builds(lambda sign, whole, frac, point: f"{sign}{whole}{'.' if point else ''}{frac}",
                     st.sampled_from(["", "-", "+"]), st.text("0123456789", max_size=12),
                     st.text("0123456789", max_size=12), st.booleans())
TOKENS = st.one_of(st.text(NUMBERISH, min_size=1, max_size=7), DECIMALS.filter(bool),
                   st.floats(allow_nan=False, allow_infinity=False).map(repr))


def _column_of(tokens):
    """The tokens as the small route sees them: one field per line, a zero-padded byte matrix."""
    layout = trec_tokens.field_layout(b"\n".join(tokens) + b"\n", 1, "x")
    return trec_tokens.field_column(layout, 0)[0]


@settings(max_examples=500, deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=4))
@example(["+"])
@example(["+-5"])
@example(["-+5"])
@example(["5", "+"])
@example(["1_0"])
@example(["1e400"])
@example([".e1"])
@example(["-0", "-0.000", "+0."])
@example(["123456789012345", "1234567890123456", "0.000000000000001", "9007199254740993"])
@example(["5.", ".5", "."])
def test_the_number_checks_read_exactly_the_trec_syntax(tokens):
    """The small route reads numbers without regular expressions -- ranks and labels by character classes, scores
    by Clinger's fast path (at most 15 digits) else float() -- and must accept exactly the tokens the TREC syntax
    accepts (scores also finite), each read as the very double float() reads."""
    tokens = [t for t in tokens if " " not in t and t]
    if not tokens:
        return
    raw = [t.encode() for t in tokens]
    want_int = all(re.fullmatch(INT_SYNTAX, t, re.ASCII) for t in tokens)
    assert trec_tokens.integer_tokens(raw) == want_int, tokens
    assert trec_tokens.integers_ok(_column_of(raw)) == want_int, tokens
    want_score = all(re.fullmatch(SCORE_SYNTAX, t, re.ASCII) and np.isfinite(float(t)) for t in tokens)
    for read in (trec_tokens.score_values, lambda r: trec_tokens.score_column(_column_of(r))):
        try:
            values = read(raw)
        except FastPathUnavailable:
            assert not want_score, tokens
        else:
            assert want_score, tokens
            expected = np.array([float(t) for t in tokens])
            assert values.tobytes() == expected.tobytes(), (tokens, values, expected)  # the same bits, -0.0 included
    if want_int and all(len(t.lstrip("+-")) <= 15 for t in tokens):
        assert trec_tokens.integer_column(_column_of(raw), "x").tolist() == [int(t) for t in tokens]


@pytest.mark.parametrize("data, ok", [
    (b"a b c\nd e f\n", True),
    (b"a b\nc d e f\n", False),  # two lines of 2 and 4 fields: the right total, the wrong lines
    (b"a b c d\ne f\n", False),
    (b"a b c\nd e f g\n", False),
    (b"a b c\n", True),
])
def test_every_line_must_hold_the_fields_not_just_the_total(data, ok):
    if ok:
        assert trec_tokens.plain_text(data, 3, "run") == data
    else:
        with pytest.raises(FastPathUnavailable, match="not 3 single-space separated fields on every line"):
            trec_tokens.plain_text(data, 3, "run")
