"""`rag-metrics answers judge`: the diagnosis from the command line; bad input exits 2 before writing (issue 35)."""

import json
from pathlib import Path

import pytest

from rag_metrics.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
BASE = ["answers", "judge", "--golden", str(DATA / "golden.jsonl"), "--pages", str(DATA / "corpus"),
        "--answers", str(DATA / "answers.jsonl")]
LABELS = str(DATA / "support" / "claims.jsonl")


def test_judge_two_generators_with_labels_writes_json_that_reads_back(tmp_path, capsys):
    out = tmp_path / "diagnosis.json"
    # --force: whatever the judge's agreement with the shipped labels (the offline judge was tuned on them; the
    # token-overlap baseline is refused: the test below)
    code = main(BASE + ["--generator", "gen_a", "--generator", "gen_b", "--labels", LABELS, "--force", "-o", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "passed share, gen_b minus gen_a" in text and "offline" in text
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["runs"]) == {"gen_a", "gen_b"} and report["agreement"][0]["Judge"] == "offline"
    counts = report["runs"]["gen_a"]["counts"]
    assert sum(counts.values()) == 65 == report["runs"]["gen_a"]["n_questions"]
    assert report["change"]["n"] == 65
    q017 = next(q for q in report["runs"]["gen_a"]["questions"] if q["question_id"] == "q017")
    assert q017["diagnosis"] == "misled" and q017["lexical_ok"] is False


@pytest.mark.parametrize("extra, message", [
    ([], "choose one with --generator"),
    (["--generator", "gen_z"], "--generator: expected one or two of"),
    (["--generator", "gen_a", "--context-k", "0"], "--context-k"),
    (["--generator", "gen_a", "-o", "OUT.csv"], "expected a .json file"),
    (["--generator", "gen_a", "--judge", "token-overlap", "--labels", LABELS], "refused for headline figures"),
    (["--generator", "gen_a", "--judge", "token-overlap", "--labels", LABELS],
     "the lower end of its 95% interval is below 0.6: refused"),
    (["--generator", "gen_a", "--option", "min_overlap=2"], "min_overlap"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "d.json"
    extra = [str(tmp_path / "d.csv") if e == "OUT.csv" else e for e in extra]
    if "-o" not in extra:
        extra += ["-o", str(out)]
    else:
        out = Path(extra[extra.index("-o") + 1])
    code = main(BASE + extra)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_refused_judge_can_be_forced(tmp_path, capsys):
    code = main(BASE + ["--generator", "gen_a", "--judge", "token-overlap", "--labels", LABELS, "--force"])
    assert code == 0 and "token-overlap" in capsys.readouterr().out


def test_llm_judge_dry_run_estimates_before_any_call(tmp_path, capsys):
    code = main(BASE + ["--generator", "gen_a", "--judge", "openai", "--option", "model=judge",
                        "--option", "base_url=http://127.0.0.1:9/v1", "--cache", str(tmp_path / "cache"),
                        "--dry-run", "--price-in", "0.15", "--price-out", "0.6"])
    out = capsys.readouterr().out
    assert code == 0 and "call(s) to make, 0 cached" in out and "cost $" in out
    assert not (tmp_path / "cache").exists()
