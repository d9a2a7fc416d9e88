"""`rag-metrics gate` at its edges: a printed p never reads across alpha, a drop equal to the tolerance passes on
every measure kind, logs that compare nothing are refused, partial or foreign logs are named."""

import json
import re
import math

import pytest

from rag_metrics import InputError
from rag_metrics.stats import format_p
from rag_metrics.experiment.verdict import Verdict, drop_exceeds, gate
from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir

DATA = data_dir()
GOLDEN = DATA / "golden.jsonl"
LOG_A, LOG_B = DATA / "examples" / "bm25_c300o50.jsonl", DATA / "examples" / "bm25_c400o100.jsonl"


def run(capsys, *args):
    code = main(["gate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, tmp_path, *args, needles=()):
    md = tmp_path / "summary" / "gate.md"
    code, out, err = run(capsys, *args, "--markdown", md, "--junit", tmp_path / "junit.xml")
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rag-metrics gate: error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not md.parent.exists() and not (tmp_path / "junit.xml").exists()
    return lines[0]


# ---- a docs-only golden set and TREC runs built to order --------------------------------------------------------------

def docs_world(tmp_path, n, baseline_ranks, new_ranks, gold_per_question=1):
    """A golden set of ``n`` questions with gold documents only, and two TREC runs: question i retrieves its first
    gold document at rank ``ranks[i]`` (None: not at all; other ranks hold non-gold documents)."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"question_id": f"q{i:03d}", "question": f"Question {i}?", "type": "fact",
                                          "answer": "x", "gold_docs": [f"g{i}-{j}" for j in range(gold_per_question)]})
                              + "\n" for i in range(n)), encoding="utf-8")
    paths = []
    for name, ranks in (("base", baseline_ranks), ("new", new_ranks)):
        lines = []
        for i, rank in enumerate(ranks):
            docs = [f"other{i}-{r}" for r in range(1, 6)]
            if rank is not None:
                docs[rank - 1] = f"g{i}-0"
            lines += [f"q{i:03d} Q0 {d} {r} {10 - r} {name}" for r, d in enumerate(docs, start=1)]
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return golden, paths[0], paths[1]


# ---- 9. a printed p never reads across alpha ---------------------------------------------------------------------------

@pytest.mark.parametrize("p,alpha", [(0.0495, 0.05), (500 / 10001, 0.05), (0.04999999, 0.05), (0.05, 0.05),
                                     (0.0500001, 0.05), (0.0099999, 0.01), (0.0101, 0.01), (0.012, 0.05),
                                     (0.0004, 0.05), (0.00049, 0.0005), (0.3, 0.05)])
@pytest.mark.parametrize("significant", [False, True])
def test_a_printed_p_falls_on_the_side_of_alpha_its_value_does(p, alpha, significant):
    text = format_p(p, alpha, significant=significant)
    relation, number = text.split()[1:]
    shown = float(number)
    if relation == "<":
        assert p < alpha and shown <= alpha or p < shown <= alpha
    else:
        assert relation == "=" and (shown < alpha) == (p < alpha), text
        assert math.isclose(shown, p, rel_tol=0.01), text


def test_p_keeps_its_usual_digits_away_from_alpha():
    assert format_p(0.012345, 0.05) == "p = 0.012" and format_p(0.012345, 0.05, significant=True) == "p = 0.0123"
    assert format_p(0.0004, 0.05) == "p < 0.001" and format_p(float("nan"), 0.05) == "p = n/a"
    assert format_p(500 / 10001, 0.05, significant=True) == "p = 0.049995"  # 3 significant digits read "0.05"
    assert format_p(0.04999999, 0.05) == "p < 0.05"


def test_p_takes_up_to_six_decimals_before_falling_back_to_below_alpha():
    """0.049996 needs all six decimals to read below 0.05: it is printed, not replaced by 'p < 0.05'."""
    assert format_p(0.049996, 0.05) == "p = 0.049996"


def test_p_of_exactly_a_thousandth_is_printed_and_below_it_reads_below():
    assert format_p(0.001, 0.05) == "p = 0.001" and format_p(0.001) == "p = 0.001"
    assert format_p(0.000999, 0.05) == "p < 0.001"
    # at alpha = 0.001 itself, "< 0.001" still falls on the side of alpha the p does
    assert format_p(0.0005, 0.001) == "p < 0.001"


def test_a_p_at_alpha_whose_six_decimals_read_below_alpha_gets_six_significant_digits():
    # 0.0512344 rounds to 0.051234 (below alpha = p): the fallback prints p with six significant digits
    assert format_p(0.0512344, 0.0512344) == "p = 0.0512344"


def _verdict(p, delta=-0.1, alpha=0.05):
    outcome = "worse" if p < alpha else "within noise"
    return Verdict("mrr", "base", "new", 70, 0, 0.5, 0.5 + delta, delta, delta - 0.05, delta + 0.05, p, 1, 2, 3, alpha,
                   outcome, "randomization")


@pytest.mark.parametrize("p", [0.0495, 0.04996, 500 / 10001])
def test_the_verdict_line_and_the_gate_reason_show_p_below_alpha(p):
    v = _verdict(p)
    assert "p = 0.050" not in v.line() and "significant at 0.05" in v.line()
    reason = gate(v).reasons[0]
    assert "p = 0.050" not in reason and ("p = 0.049" in reason or "p < 0.05" in reason)


def test_the_paired_sentence_shows_a_monte_carlo_p_below_alpha():
    from dataclasses import replace

    from rag_metrics.stats.paired import _sentence, paired_test

    t = paired_test([0.0, 0.5, 1.0] * 10, [0.5, 0.5, 0.25] * 10, measure="mrr")
    t = replace(t, p_value=500 / 10001, verdict="worse")
    assert "p = 0.05:" not in _sentence(t) and "p = 0.049995" in _sentence(t)


def test_the_gate_prints_a_sign_test_p_just_below_alpha(tmp_path, capsys):
    # 67 questions differ, 25 better and 42 worse: the exact sign test gives p = 0.04980 < 0.05
    base = [1] * 42 + [None] * 25 + [1] * 3
    new = [None] * 42 + [1] * 25 + [1] * 3
    golden, b, n = docs_world(tmp_path, 70, base, new)
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n)
    assert code == 1, out + err
    assert "p = 0.0498, significant at 0.05" in out and "p = 0.050" not in out
    assert "fails: hit@5 fell by 0.243, significant at 0.05 (p = 0.0498)" in out


# ---- 10. a drop equal to the tolerance passes, on every measure kind ---------------------------------------------------

def _drop_world(tmp_path, measure_kind):
    """MRR: 40 questions, one falls from rank 1 to 2 and two from 4 to 5 -- a drop of exactly 3/200 = 0.015 that
    floating point computes as 0.015000000000000003. hit@5 and recall@5: 100 questions found at rank 1, 3 lost in
    the new run (hit@5 drops by exactly 0.03; recall with two gold documents, one found: by 0.015)."""
    if measure_kind == "mrr":
        return docs_world(tmp_path, 40, [1, 4, 4] + [1] * 37, [2, 5, 5] + [1] * 37), "mrr", 0.015
    base = [1] * 100
    if measure_kind == "hit":
        return docs_world(tmp_path, 100, base, [None] * 3 + [1] * 97), "hit@5", 0.03
    return docs_world(tmp_path, 100, base, [None] * 3 + [1] * 97, gold_per_question=2), "recall@5", 0.015


@pytest.mark.parametrize("kind", ["mrr", "hit", "recall"])
@pytest.mark.parametrize("offset,fails", [(0.0, False), (1e-6, False), (-1e-6, True)])
def test_max_drop_at_just_above_and_just_below_the_drop(tmp_path, capsys, kind, offset, fails):
    (golden, b, n), measure, drop = _drop_world(tmp_path, kind)
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n, "--measure", measure,
                         "--max-drop", repr(drop + offset))
    assert code == (1 if fails else 0), out + err
    if fails:
        assert f"more than the tolerated {drop + offset:g}" in out
        shown = float(out.split(f"{measure} fell by ")[1].split(",")[0])
        assert shown > drop + offset  # the printed drop reads larger than the tolerance
    else:
        assert "fails:" not in out


def test_drop_exceeds_around_the_tolerance():
    import numpy as np

    mrr = float(np.array([1 / 2 - 1, 1 / 5 - 1 / 4, 1 / 5 - 1 / 4] + [0.0] * 37).mean())
    assert mrr == -0.015000000000000003  # the rounding that made the gate fail
    assert not drop_exceeds(mrr, 0.015) and not drop_exceeds(0.985 - 1.0, 0.015) and not drop_exceeds(0.97 - 1, 0.03)
    assert drop_exceeds(-0.0150001, 0.015) and not drop_exceeds(-0.0149999, 0.015)
    assert drop_exceeds(-1e-9, 0.0) and not drop_exceeds(0.0, 0.0) and not drop_exceeds(0.2, 0.0)
    with pytest.raises(InputError, match="from 0 to 1"):
        gate(_verdict(0.5), max_drop=1.5)


# ---- 8. refusals and warnings --------------------------------------------------------------------------------------

def _rewrite_log(src, dst, edit):
    lines = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    out = [edit(i, r) for i, r in enumerate(lines)]
    dst.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out if r is not None), encoding="utf-8")
    return dst


def test_logs_of_another_golden_set_are_refused(tmp_path, capsys):
    foreign = [_rewrite_log(log, tmp_path / f"foreign{i}.jsonl",
                            lambda i, r: {**r, "question_id": "x" + r["question_id"], "question": "other " + r["question"]})
               for i, log in enumerate((LOG_A, LOG_B))]
    refused(capsys, tmp_path, "--golden", GOLDEN, "--baseline", foreign[0], "--run", foreign[1],
            needles=("foreign0.jsonl", "none of the 71 logged questions is in the golden set"))


def test_every_question_errored_on_both_sides_is_refused(tmp_path, capsys):
    errored = [_rewrite_log(log, tmp_path / f"errored{i}.jsonl",
                            lambda i, r: {"question_id": r["question_id"], "question": r["question"], "retrieved": [],
                                          "error": "timeout"})
               for i, log in enumerate((LOG_A, LOG_B))]
    refused(capsys, tmp_path, "--golden", GOLDEN, "--baseline", errored[0], "--run", errored[1],
            needles=("every golden question errored on both sides",))


def test_a_partial_log_says_how_many_questions_it_never_logged(tmp_path, capsys):
    partial = _rewrite_log(LOG_B, tmp_path / "partial.jsonl", lambda i, r: r if i < 30 else None)
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", partial)
    assert code == 1
    assert "warning: partial: 35 of the 65 golden questions compared were never logged (counted as misses)" in out


def test_a_log_run_on_another_golden_set_is_named(tmp_path, capsys):
    log = tmp_path / "other.jsonl"
    log.write_bytes(LOG_B.read_bytes())
    settings = json.loads((DATA / "examples" / "bm25_c400o100.jsonl.settings.json").read_text())
    (tmp_path / "other.jsonl.settings.json").write_text(json.dumps({**settings, "golden": "0123456789abcdef"}))
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", log)
    assert code == 0, err
    assert "warning: other: its .settings.json says it ran on golden set 0123456789abcdef, not on --golden" in out
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", LOG_B)
    assert "settings.json says" not in out  # the example log names this set


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "inf"])
def test_a_tolerance_outside_0_to_1_is_refused(tmp_path, capsys, value):
    refused(capsys, tmp_path, "--golden", GOLDEN, "--baseline", LOG_A, "--run", LOG_B, "--max-drop", value,
            needles=(f"--max-drop {float(value)!r}: expected a number from 0 to 1",))


# ---- 11. gold documents only ---------------------------------------------------------------------------------------------

def test_a_golden_set_with_gold_documents_only_is_judged_by_document(tmp_path, capsys):
    golden, b, n = docs_world(tmp_path, 10, [1] * 10, [2] * 10)
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n, "--measure", "mrr")
    assert code == 1, err  # every question fell from rank 1 to rank 2: a significant regression
    assert "document judge" in out and "1.000 → 0.500" in out
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n, "--judge", "page")
    assert code == 2 and "only the document judge applies" in err


def test_a_graded_measure_lists_worsened_questions_beside_the_newly_missed(tmp_path, capsys):
    """MRR (not 0/1): a question falling from rank 1 to 2 or from 3 to 5 is *worsened*, one falling out of the run is
    *newly missed*; every one of them is a regressed question in the printed list, the Markdown table and the JUnit
    cases, in the same order; the question that improved and the one unchanged are not."""
    golden, b, n = docs_world(tmp_path, 5, [1, 1, 2, 1, 3], [2, None, 1, 1, 5])
    md, junit = tmp_path / "gate.md", tmp_path / "junit.xml"
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n, "--measure", "mrr",
                         "--markdown", md, "--junit", junit)
    assert code == 0, err  # within noise: 4 questions differ, too few to reach p < 0.05
    assert "regressed questions (3): q001 (newly missed), q000 (worsened), q004 (worsened)" in out.splitlines()
    rows = [line for line in md.read_text(encoding="utf-8").splitlines() if line.startswith("| q0")]
    assert rows == ["| q001 | newly missed: mrr 1.000 → 0.000 | Question 1? |",
                    "| q000 | worsened: mrr 1.000 → 0.500 | Question 0? |",
                    "| q004 | worsened: mrr 0.333 → 0.200 | Question 4? |"]
    skipped = re.findall(r'name="(q\d+)"><skipped message="([^"]*)"', junit.read_text(encoding="utf-8"))
    assert skipped == [("q001", "newly missed: mrr 1.000 → 0.000 (the gate passed)"),
                       ("q000", "worsened: mrr 1.000 → 0.500 (the gate passed)"),
                       ("q004", "worsened: mrr 0.333 → 0.200 (the gate passed)")]


# ---- 12. output paths -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--markdown", "--junit"])
def test_an_output_under_a_file_is_refused_before_any_work(tmp_path, capsys, option):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", LOG_B, option, blocker / "x.md")
    assert code == 2 and err.count("\n") == 1 and f"{option}: {blocker} is a file" in err
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", LOG_B, option, tmp_path)
    assert code == 2 and err.count("\n") == 1 and "is a folder; expected a file" in err


def test_markdown_into_a_missing_folder_is_written(tmp_path, capsys):
    md = tmp_path / "new" / "dir" / "x.md"
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", LOG_B, "--markdown", md)
    assert code == 0 and md.is_file()


# ---- what the gate is given, checked before any file is read (rag_metrics.experiment.gate.gate_settings) -------

def test_gate_settings_sort_the_cutoffs_once_each_with_1_3_5_by_default():
    from rag_metrics.experiment.gate import gate_settings

    assert gate_settings() == (1, 3, 5) and gate_settings([]) == (1, 3, 5)
    assert gate_settings([5, 1, 5, 3, 10]) == (1, 3, 5, 10)
    assert gate_settings([1]) == (1,)
    with pytest.raises(InputError, match="k"):
        gate_settings([3, 0])


@pytest.mark.parametrize("alpha, ok", [(0.5, True), (0.5000001, False), (1e-9, True), (0.0, False), (0.05, True)])
def test_gate_settings_take_alpha_in_0_to_one_half(alpha, ok):
    from rag_metrics.experiment.gate import gate_settings

    if ok:
        assert gate_settings([1], alpha=alpha) == (1,)
    else:
        with pytest.raises(InputError, match="'--alpha' parameter must be a significance level in"):
            gate_settings([1], alpha=alpha)


@pytest.mark.parametrize("max_drop, ok", [(0.0, True), (1.0, True), (-1e-9, False), (1.0000001, False), (None, True)])
def test_gate_settings_take_max_drop_from_0_to_1_inclusive(max_drop, ok):
    from rag_metrics.experiment.gate import gate_settings

    if ok:
        assert gate_settings([1], max_drop=max_drop) == (1,)
    else:
        with pytest.raises(InputError, match=r"--max-drop .*: expected a number from 0 to 1") as e:
            gate_settings([1], max_drop=max_drop)
        assert e.value.field == "max_drop"


def test_the_printed_drop_reads_larger_than_a_tolerance_its_rounding_equals():
    from rag_metrics.experiment.verdict import _beyond

    # 0.0152 rounds to 0.015 at three decimals, the tolerance itself: one more digit is printed
    assert _beyond(0.0152, 0.015) == "0.0152"
    assert _beyond(0.0162, 0.015) == "0.016"


@pytest.mark.parametrize("extra,warned", [(6, False), (7, True)])
def test_gate_warns_when_more_than_half_of_the_logged_questions_are_unknown(tmp_path, capsys, extra, warned):
    # 6 golden questions; the runs log 6 + extra: exactly half unknown is no warning, one more is
    golden, b, n = docs_world(tmp_path, 6, [1] * 6, [1] * 6)
    for path in (b, n):
        path.write_text(path.read_text() + "".join(f"z{i:03d} Q0 other 1 9 x\n" for i in range(extra)))
    code, out, err = run(capsys, "--golden", golden, "--baseline", b, "--run", n, "--measure", "hit@5")
    assert code == 0, out + err
    assert ("not in the golden set (not used)" in out + err) == warned


def test_a_gzipped_trec_run_is_read_as_trec(tmp_path):
    import gzip

    from rag_metrics.experiment.gate import read_side

    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(b"q001 Q0 d1 1 9 x\nq001 Q0 d2 2 8 x\n"))
    side = read_side(path)
    assert side.kind == "trec" and list(side.log.run["doc_id"]) == ["d1", "d2"]


def test_a_log_against_a_trec_run_is_judged_by_the_judge_both_sides_have(tmp_path, capsys):
    # the log could be judged by page, the TREC run (document IDs only) by document alone: the common judge wins
    lines = []
    for row in map(json.loads, LOG_B.read_text(encoding="utf-8").splitlines()):
        docs = list(dict.fromkeys(item["doc_id"] for item in row["retrieved"]))
        lines += [f"{row['question_id']} Q0 {d} {r} {10 - r} t" for r, d in enumerate(docs, start=1)]
    trec = tmp_path / "t.txt"
    trec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "--golden", GOLDEN, "--baseline", LOG_A, "--run", trec)
    assert code == 0, out + err
    assert "document judge" in out
