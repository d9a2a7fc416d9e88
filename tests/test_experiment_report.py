"""The experiment report's content, value by value: verdict, run order, history, configuration diff, moved
questions, drill-downs, depth, judged@k, retrieval vs generation -- and `rag-metrics gate`."""

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.experiment import history as hist
from rag_metrics.experiment.evaluate import evaluate_log, latency_table
from rag_metrics.experiment.experiment_report import experiment_report
from rag_metrics.experiment.verdict import gate, moved_questions, verdict, verdict_table
from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir, load_answers
from rag_metrics.io.logs import load_log

EXAMPLES = data_dir() / "examples"
OLD, NEW = EXAMPLES / "bm25_c300o50.jsonl", EXAMPLES / "bm25_c400o100.jsonl"


def ids(n):
    return [f"q{i:03d}" for i in range(n)]


def binary(hits, n):
    """n questions, the first ``hits`` of them hit."""
    return pd.Series([1.0] * hits + [0.0] * (n - hits), index=ids(n))


# ---- the verdict -------------------------------------------------------------------------------------------------

def test_identical_runs_are_within_noise_with_p_one():
    a = binary(40, 60)
    v = verdict(a, a.copy(), "hit@5", before_name="a", after_name="b")
    assert (v.outcome, v.delta, v.p_value, v.wins, v.ties, v.losses) == ("within noise", 0.0, 1.0, 0, 60, 0)
    assert v.line().startswith("Within noise: b against a on hit@5, 0.667 → 0.667 (change +0.000")


def test_a_significant_drop_is_worse_and_a_rise_better():
    a, b = binary(50, 60), binary(50, 60)
    b.iloc[:10] = 0.0  # 10 questions lost, none won: exact two-sided p = 2 * 2**-10
    v = verdict(a, b, "hit@5")
    assert v.outcome == "worse" and v.losses == 10 and v.wins == 0
    assert v.p_value == pytest.approx(2 * 2.0 ** -10)
    assert verdict(b, a, "hit@5").outcome == "better"


def test_four_wins_and_no_loss_are_within_noise_whatever_the_interval():
    """m discordant questions cannot give p below 2^(1-m): 4 wins, 61 ties is p = 0.125, never significant."""
    a = binary(57, 65)
    b = a.copy()
    b.iloc[57:61] = 1.0
    v = verdict(a, b, "hit@1")
    assert v.p_value == pytest.approx(0.125) and v.outcome == "within noise"
    assert v.notes and "smallest p the exact test can give is 0.125" in v.notes[0]


def test_the_decision_follows_alpha():
    a, b = binary(50, 60), binary(50, 60)
    b.iloc[:6] = 0.0  # p = 2 * 2**-6 = 0.03125
    assert verdict(a, b, "m", alpha=0.05).outcome == "worse"
    assert verdict(a, b, "m", alpha=0.01).outcome == "within noise"
    with pytest.raises(InputError, match="alpha"):
        verdict(a, b, "m", alpha=1.5)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("size", [0.5, 1 / 3])
def test_a_one_sided_change_gets_an_interval_that_leans_its_way(sign, size):
    """Issue 47, item 4: recall@5 "+0.026, interval -0.129 to 0.129" beside 3 wins and 0 losses looked like a bug (an
    interval symmetric about 0, from a test of the sign-flip null). The row's interval is the inversion of the same
    bounded-mean test: it holds the change, and with changes of one sign only it reaches further on that side."""
    ids = [f"q{i:03d}" for i in range(65)]
    before = pd.DataFrame({"recall@5": [0.5] * 65, "hit@5": [1.0] * 65}, index=ids)
    after = before.copy()
    after.loc[ids[:3], "recall@5"] = 0.5 + sign * size  # 3 questions move one way, 62 tie
    row = verdict_table(before, after, ["hit@5", "recall@5"], "recall@5").loc["recall@5"]
    assert (row["wins"], row["losses"]) == ((3, 0) if sign > 0 else (0, 3))
    assert row["ci_low"] < row["change"] < row["ci_high"]
    assert sign * (row["ci_low"] + row["ci_high"]) > 0, row  # not symmetric about 0: leaning the change's way
    assert row["outcome"] == "within noise" and row["ci_low"] < 0 < row["ci_high"]  # 3 of 65 decide nothing


def test_verdict_table_puts_the_primary_first_and_adjusts_the_others():
    a = pd.DataFrame({"hit@1": binary(30, 60), "hit@5": binary(50, 60)})
    b = a.copy()
    b.loc[b.index[:8], "hit@1"] = 0.0  # p = 2 * 2**-8
    b.loc[b.index[:8], "hit@5"] = 0.0
    b["mrr"] = a["hit@1"] * 0.5
    a["mrr"] = a["hit@1"] * 0.5
    t = verdict_table(a, b, ["hit@1", "hit@5", "mrr"], "hit@5")
    assert list(t.index) == ["hit@5", "hit@1", "mrr"] and list(t["primary"]) == [True, False, False]
    assert pd.isna(t.at["hit@5", "p_holm"])  # the primary, chosen before looking, is decided by its own p
    p1, p2 = t.at["hit@1", "p"], t.at["mrr", "p"]  # the others: Holm over the two of them
    low, high = sorted([p1, p2])
    adjusted_low, adjusted_high = min(1.0, 2 * low), max(min(1.0, 2 * low), high)
    assert t.at["hit@1", "p_holm"] == pytest.approx(adjusted_low if p1 <= p2 else adjusted_high)
    assert t.at["hit@1", "p"] == pytest.approx(2 * 2.0 ** -8)
    assert list(t["outcome"]) == ["worse", "worse", "within noise"]


def test_moved_questions_regressions_first_then_by_size():
    before = pd.Series({"a": 1.0, "b": 0.0, "c": 0.5, "d": 0.2, "e": 1.0, "f": np.nan})
    after = pd.Series({"a": 0.0, "b": 1.0, "c": 0.25, "d": 0.9, "e": 1.0, "f": 1.0})
    table = moved_questions(before, after)
    assert table.to_dict("list") == {"question_id": ["a", "b", "c", "d"], "before": [1.0, 0.0, 0.5, 0.2],
                                     "after": [0.0, 1.0, 0.25, 0.9],
                                     "change": ["newly missed", "newly hit", "worsened", "improved"]}


# ---- the gate's rules ----------------------------------------------------------------------------------------------

def test_gate_rules():
    a = binary(50, 60)
    worse = a.copy()
    worse.iloc[:10] = 0.0
    slightly = a.copy()
    slightly.iloc[:2] = 0.0  # p = 0.5, -0.033
    better = a.copy()
    better.iloc[50:] = 1.0
    assert gate(verdict(a, worse, "m")).failed and gate(verdict(a, worse, "m")).exit_code == 1
    assert not gate(verdict(a, a.copy(), "m")).failed
    assert not gate(verdict(a, slightly, "m")).failed  # within noise, no tolerance declared
    assert gate(verdict(a, slightly, "m"), max_drop=0.02).failed  # a drop of 0.033 > 0.02
    assert not gate(verdict(a, slightly, "m"), max_drop=0.05).failed
    assert not gate(verdict(a, better, "m"), max_drop=0.0).failed  # an improvement passes
    with pytest.raises(InputError, match="max_drop"):
        gate(verdict(a, a, "m"), max_drop=-1)
    exact, lost = binary(32, 64), binary(32, 64)
    lost.iloc[:2] = 0.0  # a drop of exactly 2/64 = 0.03125: "more than the tolerance" fails, equal to it passes
    assert verdict(exact, lost, "m").delta == -0.03125
    assert not gate(verdict(exact, lost, "m"), max_drop=0.03125).failed
    assert gate(verdict(exact, lost, "m"), max_drop=0.03).failed


# ---- runs in the order they were made ------------------------------------------------------------------------------

def _copy_log(src: Path, dst: Path, *, settings=True, mtime=None, edit=None):
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    if edit:
        rows = [edit(r) for r in rows]
    dst.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    side = Path(f"{src}.settings.json")
    if settings and side.exists():
        Path(f"{dst}.settings.json").write_text(side.read_text())
    if mtime is not None:
        os.utime(dst, (mtime, mtime))
    return dst


def test_runs_are_ordered_by_their_settings_then_file_time_never_the_report_time(tmp_path):
    old, new = load_log(OLD), load_log(NEW)
    rows = hist.order_logs([new, old])
    assert [r["log"].name for r in rows] == ["bm25_c300o50", "bm25_c400o100"]
    assert {r["rule"] for r in rows} == {hist.RULE_SETTINGS}
    # without settings: the file's modification time (the older file first, whatever the order given)
    a = _copy_log(NEW, tmp_path / "made_first.jsonl", settings=False, mtime=1_700_000_000)
    b = _copy_log(OLD, tmp_path / "made_second.jsonl", settings=False, mtime=1_700_000_100)
    rows = hist.order_logs([load_log(b), load_log(a)])
    assert [r["log"].name for r in rows] == ["made_first", "made_second"]
    assert rows[0]["made_at"] == "2023-11-14T22:13:20.000000Z" and rows[0]["rule"] == hist.RULE_MTIME
    given = hist.order_logs([load_log(b), load_log(a)], "given")
    assert [r["log"].name for r in given] == ["made_second", "made_first"]
    assert {r["ordered_by"] for r in given} == {hist.RULE_GIVEN}
    with pytest.raises(InputError, match="unknown run order"):
        hist.order_logs([old], "newest")


def test_runs_made_at_the_same_moment_keep_the_order_given(tmp_path):
    a = _copy_log(NEW, tmp_path / "a.jsonl", settings=False, mtime=1_700_000_000)
    b = _copy_log(OLD, tmp_path / "b.jsonl", settings=False, mtime=1_700_000_000)
    assert [r["log"].name for r in hist.order_logs([load_log(b), load_log(a)])] == ["b", "a"]
    assert [r["log"].name for r in hist.order_logs([load_log(a), load_log(b)])] == ["a", "b"]


def test_saved_runs_made_at_the_same_moment_are_ordered_by_id(tmp_path):
    import datetime as dt

    from rag_metrics import evaluate
    from rag_metrics.experiment.history import save_run

    ev = evaluate(pd.DataFrame({"question_id": ["q"], "doc_id": ["d"]}),
                  pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": ["d"]}), ["mrr"])
    for second, name in [(0, "a"), (1, "longer_name"), (2, "b")]:
        save_run(ev, tmp_path, name=name, config={"made_at": "2026-01-01T00:00:00.000000Z"},
                 now=dt.datetime(2026, 11, 29, 12, 0, second, tzinfo=dt.timezone.utc))
    assert [r["name"] for r in hist.experiment_history(tmp_path)] == ["a", "longer_name", "b"]


def test_a_log_whose_time_cannot_be_told_is_refused(golden):
    from rag_metrics.io.logs import RunLog

    log = load_log(OLD)
    orphan = RunLog(log.run, log.questions, None, {})
    with pytest.raises(InputError, match="--order given"):
        hist.order_logs([orphan])
    assert hist.order_logs([orphan], "given")[0]["made_at"] is None


@pytest.fixture(scope="module")
def both(golden, corpus, tmp_path_factory):
    """The two example logs given newest first, reported with a history."""
    folder = tmp_path_factory.mktemp("history")
    return experiment_report(golden, [load_log(NEW), load_log(OLD)], corpus, history_dir=folder, n_resamples=2000)


def test_the_report_describes_the_newest_run_whatever_the_order_given(both, golden, corpus, tmp_path):
    assert both.subject.name == "bm25_c400o100" and both.baseline.name == "bm25_c300o50"
    assert [r.name for r in both.results] == ["bm25_c300o50", "bm25_c400o100"]
    assert (both.verdict.after, both.verdict.before, both.verdict.measure) == ("bm25_c400o100", "bm25_c300o50", "hit@5")
    expected = both.subject.evaluation.per_question["hit@5"].mean() - both.baseline.evaluation.per_question["hit@5"].mean()
    assert both.verdict.delta == pytest.approx(expected)
    summary = both.summary()
    assert summary["subject"] == "bm25_c400o100" and summary["baseline"] == "bm25_c300o50"
    assert summary["made_at"] == "2026-11-30T20:48:59.545651Z"
    assert [t["run"] for t in summary["trend"]] == ["bm25_c300o50", "bm25_c400o100"]
    assert list(both.runs_table()["role"]) == ["baseline", "subject"]
    other = experiment_report(golden, [load_log(OLD), load_log(NEW)], corpus, n_resamples=2000)
    assert other.summary()["verdict"] == summary["verdict"]


def test_order_given_makes_the_last_log_the_subject(golden, corpus, tmp_path):
    rep = experiment_report(golden, [load_log(NEW), load_log(OLD)], corpus, order="given", history_dir=tmp_path,
                            n_resamples=500)
    assert rep.subject.name == "bm25_c300o50" and rep.baseline.name == "bm25_c400o100"
    assert rep.verdict.delta < 0


def test_history_records_the_configuration_and_each_interval_once(both, monkeypatch):
    import rag_metrics.experiment.verdict as verdict_module

    records = both.records
    assert [r["name"] for r in records] == ["bm25_c300o50", "bm25_c400o100"]
    config = records[1]["config"]
    assert config["retriever"] == "bm25" and config["chunking"] == "char 400/100" and config["k"] == 5
    assert config["depth"] == 5 and config["options"]["size"] == 400 and "chunking" not in config["options"]
    assert config["made_rule"] == hist.RULE_SETTINGS and config["judge"]["judge"] == "overlap"
    stored = records[1]["intervals"]["hit@1"]
    per_q = both.subject.evaluation.per_question["hit@1"]
    assert stored["mean"] == pytest.approx(per_q.mean()) and stored["n"] == 65
    calls = []
    monkeypatch.setattr(verdict_module, "run_interval", lambda *a, **k: calls.append(1))
    table = both.history_table()  # every interval comes from the history: none is computed again
    both.trend()
    assert calls == [] and table.at["bm25_c400o100", "hit@1"] == f"{stored['mean']:.3f} [{stored['low']:.3f}, " \
                                                                    f"{stored['high']:.3f}]"


def test_a_log_is_saved_once_and_the_history_keeps_made_order(golden, corpus, tmp_path):
    new, old = evaluate_log(golden, load_log(NEW), corpus), evaluate_log(golden, load_log(OLD), corpus)
    first, status = hist.save_experiment(new, tmp_path, n_resamples=200)  # saved first, made second
    assert status == "saved"
    assert hist.save_experiment(new, tmp_path, n_resamples=200) == (first, f"already in the history as {first.stem}")
    hist.save_experiment(old, tmp_path, n_resamples=200)
    assert [r["name"] for r in hist.experiment_history(tmp_path)] == ["bm25_c300o50", "bm25_c400o100"]
    records = hist.experiment_history(tmp_path)
    assert hist.previous_comparable(records, records[1]["id"])["name"] == "bm25_c300o50"
    assert hist.previous_comparable(records, records[0]["id"]) is None


def test_config_diff_names_what_differs(both):
    diff = both.config_diff()
    assert list(diff.columns) == ["bm25_c300o50 (baseline)", "bm25_c400o100 (subject)", "differs"]
    differs = list(diff.index[diff["differs"] == "differs"])
    seen = [f"{label} (seen in the log)" for label in ("median text length, characters", "distinct pages", "score range")]
    assert differs == ["options", "chunking", *seen]  # the recorded settings first, then what the logs show
    assert diff.at[seen[0], "bm25_c300o50 (baseline)"] == "300" and diff.at[seen[0], "bm25_c400o100 (subject)"] == "400"
    assert diff.at["chunking", "bm25_c300o50 (baseline)"] == "char 300/50"
    assert diff.at["software", "bm25_c400o100 (subject)"] == "not recorded"
    assert diff.loc["golden set (fingerprint)"].iloc[0] == diff.loc["golden set (fingerprint)"].iloc[1]


# ---- questions that moved, misses, drill-downs ---------------------------------------------------------------------

def test_moved_and_remaining_misses_are_the_per_question_changes(both):
    a = both.baseline.evaluation.per_question["hit@5"]
    b = both.subject.evaluation.per_question["hit@5"]
    newly_hit = sorted(q for q in b.index if a[q] == 0 and b[q] == 1)
    newly_missed = sorted(q for q in b.index if a[q] == 1 and b[q] == 0)
    moved = both.moved()
    assert sorted(moved.loc[moved["change"] == "newly hit", "question_id"]) == newly_hit == ["q014", "q015"]
    assert sorted(moved.loc[moved["change"] == "newly missed", "question_id"]) == newly_missed
    assert both.remaining_misses() == [q for q in b.index if b[q] == 0 and a[q] == 0] == ["q064"]


def test_misses_are_at_the_largest_k(golden, corpus):
    r = evaluate_log(golden, load_log(OLD), corpus, ks=(1, 5))
    at_1 = [q for q, v in r.evaluation.per_question["hit@1"].items() if v == 0]
    at_5 = [q for q, v in r.evaluation.per_question["hit@5"].items() if v == 0]
    assert len(at_1) > len(at_5)
    assert r.misses() == at_5 and r.misses(1) == at_1
    assert sorted(r.failures["question_id"]) == sorted(at_5)


def test_drilldowns_are_capped_moved_first(both):
    full = both.drilldown_plan(100)
    assert list(full["question_id"]) == ["q014", "q015", "q064"]
    assert list(full["why"]) == ["newly hit", "newly hit", "missed in both runs"]
    assert list(full["failure"]) == ["", "", "not_retrieved"]
    for cap in (0, 1, 2, 3):
        plan = both.drilldown_plan(cap)
        assert list(plan["drilldown"]) == [i < cap for i in range(3)]
    with pytest.raises(InputError):
        both.drilldown_plan(-1)


def test_drilldown_shows_both_runs_without_br_and_escaped(both):
    page = both.explain("q014", "newly hit")._repr_html_()
    assert "<br" not in page
    assert "baseline bm25_c300o50" in page and "subject bm25_c400o100" in page
    assert page.count("miss in the top 5") == 1 and page.count("hit in the top 5") == 1
    assert "<mark>" in page


def test_drilldowns_reuse_the_page_index(both, monkeypatch):
    import rag_metrics.experiment.evaluate as experiment_module

    built = []
    original = experiment_module.PageIndex.__init__
    monkeypatch.setattr(experiment_module.PageIndex, "__init__", lambda self, c: built.append(1) or original(self, c))
    for q in both.subject.golden.answerable:
        both.subject.explain_data(q)
    assert built == []


def test_drilldown_data_equals_the_judged_rows(both):
    r = both.subject
    data = r.explain_data("q064")
    rows = r.judged[r.primary]
    rows = rows[rows["question_id"] == "q064"].sort_values("rank")
    assert [i["rank"] for i in data["items"]] == list(rows["rank"])
    assert [i["doc_id"] for i in data["items"]] == list(rows["doc_id"])
    for name, table in r.judged.items():
        mine = table[table["question_id"] == "q064"].sort_values("rank")
        assert [i["verdicts"][name] for i in data["items"]] == [bool(s) for s in mine["satisfies"]]


# ---- honest depth, judged@k, answers ------------------------------------------------------------------------------

def test_k_beyond_the_logged_depth_is_warned(golden, corpus):
    r = evaluate_log(golden, load_log(NEW), corpus, ks=(1, 5, 10))
    assert r.depth == 5
    assert r.depth_warning().startswith("k = 10 exceeds the depth run bm25_c400o100 logged: at most 5 item(s)")
    pq = r.evaluation.per_question
    assert pq["hit@10"].equals(pq["hit@5"].rename("hit@10")) or (pq["hit@10"] == pq["hit@5"]).all()
    assert evaluate_log(golden, load_log(NEW), corpus, ks=(1, 5)).depth_warning() is None


def test_judged_at_k_counts_answerable_questions_only(both, golden):
    j = both.subject.judged_at_k()
    gold = golden.gold.dropna(subset=["doc_id"]).groupby("question_id")["doc_id"].agg(set)
    run = both.subject.run.sort_values(["question_id", "rank"])
    shares = []
    for q in golden.answerable:  # the definition: distinct documents of the top k, share labelled for q
        docs = list(dict.fromkeys(run.loc[(run["question_id"] == q) & (run["rank"] <= 5), "doc_id"]))
        shares.append(sum(d in gold[q] for d in docs) / len(docs))
    assert j["mean"] == pytest.approx(np.mean(shares)) and j["evaluated"] == len(golden.answerable) == 65
    assert j["excluded"] == 6 and j["positive_only"] is True and j["k"] == 5


def test_generation_statuses_at_the_generators_depth(both, golden):
    answers = load_answers(data_dir() / "answers.jsonl")
    gen = both.subject.generation(answers, generator="gen_a")
    assert gen.source == "answers file" and gen.k == 3 and gen.context["differ"] == []
    assert gen.without_expected == []
    rows = answers[answers["generator"] == "gen_a"].set_index("question_id")
    from rag_metrics.answers.matching import answer_match

    gold = golden.gold.dropna(subset=["doc_id"]).groupby("question_id")["doc_id"].agg(set)
    run = both.subject.run
    counts = dict.fromkeys(("passed", "gold_missed_answer_wrong", "gold_found_answer_wrong", "gold_missed_answer_right"), 0)
    for q in golden.answerable:  # independent count: every gold document among the top 3, exact answer match
        top = set(run.loc[(run["question_id"] == q) & (run["rank"] <= 3), "doc_id"])
        ok_r = gold[q] <= top
        ok_a = answer_match(rows.at[q, "generated_answer"], golden.questions.at[q, "answer"])
        counts[("passed" if ok_a else "gold_found_answer_wrong") if ok_r else
               ("gold_missed_answer_right" if ok_a else "gold_missed_answer_wrong")] += 1
    assert gen.attribution.status_counts == counts
    assert gen.status_table()["questions"].to_dict() == counts
    # the section's words name what the status measures: under rule "all" a failed retrieval is a gold document missing
    assert gen.status_table().at["gold_missed_answer_right", "what it measures"] == (
        "a gold document missing from the top 3, answer right")
    assert (f"{counts['gold_missed_answer_right']} with a right one" in gen.summary()
            and "Recall@3 < 1, rule 'all'" in gen.summary() and "without the gold" not in gen.summary())


def test_answers_from_another_retrieval_are_named(both):
    answers = load_answers(data_dir() / "answers.jsonl")
    answers = answers[answers["generator"] == "gen_a"].copy()
    answers["retrieved_ids"] = [["faq_ja"] * 3 if q in ("q001", "q002") else ids_
                                for q, ids_ in zip(answers["question_id"], answers["retrieved_ids"])]
    gen = both.subject.generation(answers)
    assert gen.context["differ"] == ["q001", "q002"] and gen.k == 5  # not every context is this run's: largest k


def test_logged_answers_and_no_answers(golden, corpus):
    with_answers = evaluate_log(golden, load_log(EXAMPLES / "langchain_bm25_c400o100.jsonl", preset="langchain"), corpus)
    gen = with_answers.generation()
    assert gen.source == "log" and gen.attribution is not None and gen.k == 5
    none = evaluate_log(golden, load_log(OLD), corpus).generation()
    assert none.source is None and none.attribution is None and len(none.status_table()) == 0 and none.summary() == ""


def test_latency_table(both):
    table = latency_table(both.results)
    lat = both.subject.log.questions["latency_ms"].astype(float)
    assert list(table.index) == ["bm25_c300o50", "bm25_c400o100"]
    assert table.at["bm25_c400o100", "median_ms"] == pytest.approx(lat.median())
    assert table.at["bm25_c400o100", "p95_ms"] == pytest.approx(np.percentile(lat, 95))


# ---- the gate on the command line ----------------------------------------------------------------------------------

def _planted(tmp_path, name, questions, src=NEW):
    """A copy of a log in which ``questions`` retrieved nothing (a planted regression)."""
    def edit(rec):
        return {**rec, "retrieved": []} if rec["question_id"] in questions else rec
    return _copy_log(src, tmp_path / name, settings=False, edit=edit)


GOLDEN = str(data_dir() / "golden.jsonl")
PAGES = str(data_dir() / "corpus")


def gate_cli(*args):
    return main(["gate", "--golden", GOLDEN, "--pages", PAGES, *map(str, args)])


def test_gate_fails_a_planted_regression_and_writes_its_summaries(tmp_path, capsys):
    lost = [f"q{i:03d}" for i in range(1, 13)]
    bad = _planted(tmp_path, "bad.jsonl", set(lost))
    md, junit = tmp_path / "summary.md", tmp_path / "gate.xml"
    assert gate_cli("--baseline", NEW, "--run", bad, "--markdown", md, "--junit", junit) == 1
    out = capsys.readouterr().out
    assert out.startswith("rag-metrics gate: FAILED (hit@5, overlap judge; log bad against log bm25_c400o100)")
    assert "Worse: bad against bm25_c400o100 on hit@5" in out and "fails: hit@5 fell by 0.185" in out
    assert "regressed questions (12): " + ", ".join(f"{q} (newly missed)" for q in lost) in out
    text = md.read_text()
    assert text.startswith("\n## rag-metrics gate: ❌ failed\n") and "### Regressed questions (12)" in text
    assert text.endswith(".\n\n")  # self-contained: a blank line before and after, whatever is appended next
    assert ("| q001 | newly missed: hit@5 1.000 → 0.000 | What is the deadline for submitting an expense claim? |"
            in text)
    patterns = text.split("### Patterns (")[1]  # the diagnosis's patterns, after the regressed questions
    assert "12 of 12 newly missed questions have expense\\_policy as gold document" in patterns
    assert "pattern: 12 of 12 newly missed questions have expense_policy as gold document" in out
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("tests") == "13" and suite.get("failures") == "13" and len(cases) == 13
    assert cases[0].find("failure").get("type") == "regression"  # the gate itself, then one case per question
    assert [c.get("name") for c in cases[1:]] == lost
    assert cases[1].find("failure").get("message") == "newly missed: hit@5 1.000 → 0.000"
    # appended twice (two gates in one step summary), each block stays whole; a report link when given
    assert gate_cli("--baseline", NEW, "--run", bad, "--markdown", md, "--report-link", "reports/exp/index.html") == 1
    text = md.read_text()
    assert ").\n\n\n## rag-metrics gate" in text and "[The experiment report](reports/exp/index.html)" in text
    assert gate_cli("--baseline", NEW, "--run", bad, "--markdown", tmp_path / "x.md",
                    "--report-link", "javascript:alert(1)") == 2
    assert not (tmp_path / "x.md").exists() and "report link" in capsys.readouterr().err


def test_gate_junit_skips_regressed_questions_when_the_gate_passes(tmp_path, capsys):
    two = _planted(tmp_path, "two.jsonl", {"q001", "q002"})
    junit = tmp_path / "gate.xml"
    assert gate_cli("--baseline", NEW, "--run", two, "--junit", junit) == 0
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "0", "2")
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None  # the gate passed
    assert [c.find("skipped").get("message") for c in cases[1:]] == [
        "newly missed: hit@5 1.000 → 0.000 (the gate passed)"] * 2


def test_gate_passes_identical_within_noise_and_improved_runs(tmp_path, capsys):
    two = _planted(tmp_path, "two.jsonl", {"q001", "q002"})
    lost = _planted(tmp_path, "lost.jsonl", {f"q{i:03d}" for i in range(1, 13)})
    assert gate_cli("--baseline", NEW, "--run", NEW) == 0
    assert "Within noise" in capsys.readouterr().out
    assert gate_cli("--baseline", NEW, "--run", two) == 0  # two questions lost: p = 0.5
    assert "regressed questions (2): q001 (newly missed), q002 (newly missed)" in capsys.readouterr().out
    assert gate_cli("--baseline", NEW, "--run", two, "--max-drop", "0.02") == 1  # but a declared tolerance holds
    assert "more than the tolerated 0.02" in capsys.readouterr().out
    assert gate_cli("--baseline", lost, "--run", NEW) == 0  # a significant improvement passes
    assert "Better: bm25_c400o100 against lost" in capsys.readouterr().out


def test_gate_reads_a_log_with_its_own_shape(capsys):
    """``PRESET:LOG`` as in the report: a LangChain log gated against itself passes; read as native it is refused."""
    lc = EXAMPLES / "langchain_bm25_c400o100.jsonl"
    assert gate_cli("--baseline", f"langchain:{lc}", "--run", f"langchain:{lc}") == 0
    assert "Within noise" in capsys.readouterr().out
    assert gate_cli("--baseline", f"langchain:{lc}", "--run", lc) == 2
    assert str(lc) in capsys.readouterr().err


def test_gate_compares_a_trec_run_and_a_history_entry(tmp_path, capsys, both):
    run = load_log(NEW).run.drop_duplicates(["question_id", "doc_id"])  # TREC: each document once per question
    trec = tmp_path / "run.trec"
    trec.write_text("".join(f"{q} Q0 {d} {r} {s} bm25\n" for q, d, r, s in
                            zip(run["question_id"], run["doc_id"], run["rank"], run["score"])))
    assert gate_cli("--baseline", trec, "--run", NEW) == 0
    out = capsys.readouterr().out
    assert "document judge; log bm25_c400o100 against trec run" in out and "change +0.000" in out
    record = next(Path(both.history_dir).glob("*_bm25_c300o50.json"))
    assert gate_cli("--baseline", record, "--run", NEW) == 0
    assert "overlap judge; log bm25_c400o100 against history bm25_c300o50" in capsys.readouterr().out
    assert gate_cli("--baseline", "bm25_c300o50", "--history-dir", both.history_dir, "--run", NEW, "-k", "1",
                    "-k", "5") == 0
    assert gate_cli("--baseline", record, "--run", NEW, "--judge", "page") == 2
    assert "the history record was judged by overlap" in capsys.readouterr().err


def test_gate_refuses_bad_input_before_writing(tmp_path, capsys, both):
    md = tmp_path / "out" / "summary.md"
    cases = [
        (["--baseline", tmp_path / "none.jsonl", "--run", NEW], "not found"),
        (["--baseline", OLD, "--run", NEW, "--measure", "ndcg@3"], "measure 'ndcg@3'"),
        (["--baseline", OLD, "--run", NEW, "--alpha", "5"], "alpha"),
        (["--baseline", OLD, "--run", NEW, "--max-drop", "-0.1"], "max-drop"),
        (["--baseline", next(Path(both.history_dir).glob("*.json")), "--run", NEW, "-k", "10"], "holds no hit@10"),
    ]
    bad_golden = tmp_path / "golden.jsonl"
    bad_golden.write_text((data_dir() / "golden.jsonl").read_text().replace('"q001"', '"q001x"', 1))
    for args, message in cases:
        assert gate_cli(*args, "--markdown", md) == 2, args
        assert re.search(message, capsys.readouterr().err), args
    assert main(["gate", "--golden", str(bad_golden), "--pages", PAGES, "--baseline",
                 str(next(Path(both.history_dir).glob("*.json"))), "--run", str(NEW), "--markdown", str(md)]) == 2
    assert "another golden set" in capsys.readouterr().err
    assert not md.parent.exists()


def test_readme_ci_snippets_are_valid_yaml_with_valid_gate_commands():
    """The GitHub Actions and GitLab CI snippets cannot run here: their YAML parses, and every rag-metrics command
    in them is accepted by the command line's own parser."""
    import shlex

    import yaml

    from rag_metrics.cli import _parser

    root = Path(__file__).resolve().parent.parent
    text = "".join((root / name).read_text(encoding="utf-8") for name in ("README.md", "docs/gate.md"))
    snippets = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
    assert len(snippets) == 2
    commands = []
    for snippet in snippets:
        data = yaml.safe_load(snippet)
        scripts = [step["run"] for step in data] if isinstance(data, list) else data["retrieval-gate"]["script"]
        for script in scripts:
            commands += [line for line in script.splitlines() if line.strip().startswith("rag-metrics")]
    assert sum("rag-metrics gate" in c for c in commands) == 2
    for command in commands:
        args = _parser().parse_args(shlex.split(command.replace("$GITHUB_STEP_SUMMARY", "summary.md"))[1:])
        if args.command == "gate":
            assert args.max_drop == 0.02 and args.junit == "gate.xml" and args.markdown


def test_a_first_run_without_misses_has_an_empty_plan(golden, corpus, tmp_path):
    from rag_metrics.io.golden import load_golden

    small = tmp_path / "golden.csv"
    small.write_text("question_id,question,doc_id,page\nq001,What is the deadline for submitting an expense claim?,"
                     "expense_policy,3\n")
    rep = experiment_report(load_golden(small, corpus=corpus), [load_log(NEW)], corpus, n_resamples=100)
    plan = rep.drilldown_plan()
    assert rep.verdict is None and rep.baseline_record is None and len(rep.moved()) == 0
    assert len(plan.loc[plan["drilldown"]]) == 0 and plan["drilldown"].dtype == bool
    assert "is the first run of this experiment" in rep.verdict_markdown() and len(rep.config_diff()) == 0


def test_inputs_are_handed_over_when_they_match_and_read_again_otherwise(tmp_path):
    from rag_metrics.report.report_inputs import load_inputs, read_inputs, write_cache

    log = _copy_log(NEW, tmp_path / "log.jsonl")
    params = dict(golden=GOLDEN, runs=[str(log)], pages=PAGES)
    inputs = read_inputs(**params)
    inputs.golden.questions.attrs["marker"] = "from the cache"
    cache = write_cache(inputs, tmp_path / "inputs.pickle", **params)
    assert oct(cache.stat().st_mode & 0o777) == "0o600"
    handed = load_inputs(cache, **params)
    assert handed.source.startswith("handed over") and handed.golden.questions.attrs["marker"] == "from the cache"
    assert handed.unknown == [0] and len(handed.logs[0].run) == 355
    os.utime(log, (1_600_000_000, 1_600_000_000))  # the log changed since: the cache no longer matches
    again = load_inputs(cache, **params)
    assert again.source == "read from the files" and "marker" not in again.golden.questions.attrs
    assert load_inputs(None, **params).source == "read from the files"


def test_failure_counts_by_type_and_no_answer_by_value(both, golden):
    r = both.subject
    counts = r.failure_counts()
    assert list(counts.index) == ["not_retrieved", "other_document_first", "wrong_page"]
    assert counts["questions"].tolist() == [1, 0, 0] and counts.at["not_retrieved", "question IDs"] == "q064"
    by_type = r.by("type", wide=True)
    pq, types = r.evaluation.per_question, golden.questions["type"]
    for t, row in by_type.iterrows():
        mine = pq.loc[[q for q in golden.answerable if types[q] == t]]
        assert row["n"] == len(mine) and row["hit@1"] == pytest.approx(mine["hit@1"].mean())
    assert by_type["n"].sum() == 65
    na = r.no_answer()
    run = r.run
    assert list(na["question_id"]) == [q for q in golden.labelled.index if types[q] == "no_answer"]
    for row in na.itertuples():
        top = run[(run["question_id"] == row.question_id) & (run["rank"] == 1)]
        assert row.retrieved == (run["question_id"] == row.question_id).sum()
        assert row.top_document == top["doc_id"].iloc[0] and row.top_score == pytest.approx(top["score"].iloc[0])


def test_runs_table_by_value(both):
    table = both.runs_table()
    assert table.to_dict("index")["bm25_c400o100"] == {
        "made at": "2026-11-30T20:48:59.545651Z", "ordered by": hist.RULES[hist.RULE_SETTINGS],
        "questions logged": 71, "not in the golden set": 0, "items": 355, "depth": 5, "role": "subject"}


def test_the_cli_history_reads_the_reports_history_and_agrees(both, capsys):
    """One history store: `rag-metrics history` lists and diffs the runs the experiment report saved, and its
    flips are the report's moved questions."""
    assert main(["history", "--dir", both.history_dir, "list"]) == 0
    listed = capsys.readouterr().out
    assert "bm25_c300o50" in listed and "bm25_c400o100" in listed
    assert main(["history", "--dir", both.history_dir, "diff", "bm25_c300o50", "bm25_c400o100"]) == 0
    out = capsys.readouterr().out
    d = hist.diff("bm25_c300o50", "bm25_c400o100", history_dir=both.history_dir)
    flips = d.flips[d.flips["measure"] == "hit@5"]
    moved = both.moved()
    assert sorted(zip(flips["question_id"], flips["change"])) == sorted(zip(moved["question_id"], moved["change"]))
    assert "newly hit" in out


def _synthetic(n_questions, n_pages=200, seed=0, text=True):
    """A small golden set, pages and a log of ``n_questions`` questions with 5 items each (in memory)."""
    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.io.golden import golden_from_records
    from rag_metrics.io.logs import RunLog, log_records

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(500)]
    pages = [{"doc_id": f"d{p // 10}", "page": p % 10 + 1, "text": " ".join(rng.choice(words, 120))}
             for p in range(n_pages)]
    corpus = corpus_from_pages(pages)
    golden = golden_from_records([(i + 1, {"question_id": f"q{i}", "question": f"question {i}?",
                                           "gold_pages": [[pages[i % n_pages]["doc_id"], pages[i % n_pages]["page"]]]})
                                  for i in range(n_questions)], corpus=corpus)
    records = []
    for i in range(n_questions):
        items = [pages[int(j)] for j in rng.integers(0, n_pages, 5)]
        records.append((i + 1, {"question_id": f"q{i}", "retrieved": [
            {"doc_id": it["doc_id"], "page": it["page"], "score": 5 - r, **({"text": it["text"][:300]} if text else {})}
            for r, it in enumerate(items)]}))
    items, questions, how = log_records(records)
    run = pd.DataFrame(items)
    run["pages"] = run["pages"].map(tuple)
    return golden, RunLog(run, pd.DataFrame(questions), "synthetic.jsonl", {"read": how}), corpus


def test_a_drilldown_costs_the_same_whatever_the_size_of_the_run():
    """Scaling, by ratio (never by wall clock): one drill-down in a run 16 times larger costs about the same
    (it used to scan every judged row of every judge for each item, and rebuild the page index)."""
    import time

    def cost(n):  # page metadata only: what a drill-down costs apart from highlighting text
        golden, log, corpus = _synthetic(n, text=False)
        r = evaluate_log(golden, log, corpus)
        questions = list(golden.answerable)[:20]
        r.explain_data(questions[0])  # the grouping, once
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            for q in questions:
                r.explain_data(q)
            best = min(best, time.process_time() - start)
        return best

    small, large = cost(500), cost(8000)  # the old way: 5.8 vs 29 ms (a ratio of 5); now about 1
    assert large < 2 * small, (small, large)


def test_the_baseline_skips_runs_on_another_judge_or_golden_set(golden, corpus, tmp_path):
    middle = _copy_log(NEW, tmp_path / "middle.jsonl", settings=False, mtime=1_900_000_000)  # made in between
    old_r = evaluate_log(golden, load_log(OLD), corpus)
    mid_r = evaluate_log(golden, load_log(middle), corpus, primary="page")  # another judge
    new_r = evaluate_log(golden, _log_made_at(tmp_path, "2099-01-01T00:00:00Z"), corpus)
    for r in (new_r, mid_r, old_r):
        hist.save_experiment(r, tmp_path / "h", n_resamples=100)
    records = hist.experiment_history(tmp_path / "h")
    assert [r["name"] for r in records] == ["bm25_c300o50", "middle", "newest"]
    assert hist.previous_comparable(records, records[2]["id"])["name"] == "bm25_c300o50"
    assert [hist.comparable(r, records[2]) for r in records] == [True, False, True]


def _log_made_at(folder, when):
    path = _copy_log(NEW, folder / "newest.jsonl", settings=False)
    settings = json.loads(Path(f"{NEW}.settings.json").read_text())
    Path(f"{path}.settings.json").write_text(json.dumps({**settings, "started_at": when}))
    return load_log(path)


def test_log_profile_says_what_a_log_shows_without_its_settings():
    """Counted by hand: 2 questions, 3 items; texts of 4, 6 (and none); 2 documents; pages a1, a2, b5."""
    from types import SimpleNamespace

    from rag_metrics.experiment.experiment_report import log_profile

    run = pd.DataFrame({"question_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "b"], "pages": [(1, 2), (2,), (5,)],
                        "text": ["abcd", "abcdef", None], "score": [0.0, 0.5, float("nan")]})
    assert log_profile(SimpleNamespace(run=run)) == {
        "items per question": "1.5", "median text length, characters": "5", "distinct documents": "2",
        "distinct pages": "3", "score range": "0.000 to 0.500"}
    bare = run.assign(text=None, score=float("nan"))
    got = log_profile(SimpleNamespace(run=bare))
    assert got["median text length, characters"] == "-" and got["score range"] == "-"


def test_ruler_comparison_holds_both_runs_under_every_ruler(both):
    long = both.ruler_comparison()
    assert list(dict.fromkeys(long["run"])) == ["bm25_c300o50", "bm25_c400o100"]  # the baseline first
    for result in (both.baseline, both.subject):
        table = result.ruler_table()
        mine = long[long["run"] == result.name]
        assert len(mine) == len(table.index) * len(both.measures)
        for row in mine.itertuples(index=False):
            assert row.value == pytest.approx(float(table.at[row.ruler, row.measure]))


# ---- the banner's "changed" line and ruler warning -------------------------------------------------------------

class _Fake:
    """Just what ExperimentReport.changed_settings / rulers_apart read."""

    def __init__(self, diff=None, changes=None, delta=None, measure="hit@5"):
        from types import SimpleNamespace

        self._diff, self._changes, self.measure = diff, changes, measure
        self.verdict = None if delta is None else SimpleNamespace(delta=delta)
        self.subject = SimpleNamespace(primary="overlap")

    def config_diff(self):
        return pd.DataFrame() if self._diff is None else self._diff

    def ruler_changes(self):
        return self._changes


def _diff(rows):
    return pd.DataFrame([{"setting": s, "a (baseline)": b, "b (subject)": a, "differs": "differs" if d else ""}
                         for s, b, a, d in rows]).set_index("setting")


def test_the_banner_names_the_named_settings_that_changed_before_the_option_list():
    from rag_metrics.experiment.experiment_report import ExperimentReport as R

    diff = _diff([("options", "size=300", "size=400", True), ("chunking", "char 300/50", "char 400/100", True),
                  ("score range (seen in the log)", "1 to 2", "1 to 3", True), ("retriever", "bm25", "bm25", False)])
    assert R.changed_settings(_Fake(diff)) == {"rows": [("chunking", "char 300/50", "char 400/100")], "more": 2}
    only_options = _diff([("options", "size=300", "size=400", True), ("retriever", "bm25", "bm25", False)])
    assert R.changed_settings(_Fake(only_options)) == {"rows": [("options", "size=300", "size=400")], "more": 0}
    only_seen = _diff([("k (seen in the log)", "5", "10", True)])
    assert R.changed_settings(_Fake(only_seen)) == {"rows": [("k (seen in the log)", "5", "10")], "more": 0}
    two = _diff([("chunking", "a", "b", True), ("retriever", "bm25", "dense", True), ("corpus", "x", "y", True)])
    assert R.changed_settings(_Fake(two)) == {"rows": [("chunking", "a", "b"), ("retriever", "bm25", "dense")],
                                              "more": 1}
    assert R.changed_settings(_Fake(_diff([("retriever", "bm25", "bm25", False)]))) == {"rows": [], "more": 0}
    assert R.changed_settings(_Fake(None)) == {"rows": [], "more": 0}


@pytest.mark.parametrize("delta, warned", [(0.05, False), (0.0499, True), (-0.05, False), (-0.0499, True),
                                           (0.0, True)])
def test_the_banner_warns_exactly_when_the_rulers_spread_exceeds_the_change(delta, warned):
    from rag_metrics.experiment.experiment_report import ExperimentReport as R

    changes = pd.DataFrame({"hit@5": [0.0, 0.05, 0.02], "mrr": [0.0, 0.9, 0.0]},
                           index=["document", "marker", "overlap"])
    got = R.rulers_apart(_Fake(changes=changes, delta=delta))
    assert (got is not None) == warned
    if warned:
        assert got == {"headline": "overlap", "low": "document", "low_change": 0.0, "high": "marker",
                       "high_change": 0.05, "spread": 0.05, "change": delta}
    assert R.rulers_apart(_Fake(changes=changes[["hit@5"]].iloc[:1], delta=0.0)) is None  # one ruler: no spread
    assert R.rulers_apart(_Fake(changes=None, delta=0.0)) is None and R.rulers_apart(_Fake(changes=changes)) is None


def test_the_sample_banner_says_what_changed_and_that_the_rulers_disagree(both):
    html = str(both.banner()._repr_html_())
    assert "Changed: chunking <strong>char 300/50</strong> → <strong>char 400/100</strong>" in html
    apart = both.rulers_apart()
    assert apart["spread"] > abs(both.verdict.delta)
    assert "The change between the two runs depends on the ruler more than on the runs" in html
    assert f"the headline's ruler, {both.subject.primary}, sees {both.verdict.delta:+.3f}" in html
    moved = both.moved()
    newly = list(moved.loc[moved["change"] == "newly hit", "question_id"])
    named = [q + (f" ({c})" if c else "") for q, c in moved.loc[moved["change"] == "newly hit", ["question_id", "credit"]]
             .head(3).itertuples(index=False)]
    assert f"{len(newly)} newly hit ({', '.join(named)}" in html  # the moved questions named on the first screen


def test_the_banner_escapes_settings_and_ruler_names_from_users_files():
    from types import SimpleNamespace

    from rag_metrics.core.html import render

    evil = '<img src=x onerror="alert(1)">'
    v = SimpleNamespace(mean_before=0.5, mean_after=0.6, delta=0.1, confidence=0.95, ci_low=0.0, ci_high=0.2,
                        significant=False, alpha=0.05, wins=2, ties=3, losses=0, n=5)
    html = render("verdict_banner.html.j2", outcome="within noise", v=v, subject=evil, baseline=evil,
                  measure="hit@5", iv={}, p="p = 0.5", moved=[("newly hit", 4, [evil])], findings=[],
                  more_findings=0,
                  changed={"rows": [(evil, evil, evil)], "more": 0},
                  rulers_apart={"headline": evil, "low": evil, "low_change": 0.0, "high": evil, "high_change": 0.3,
                                "spread": 0.3, "change": 0.1})
    assert "<img" not in html and html.count("&lt;img src=x onerror=&#34;alert(1)&#34;&gt;") == 9
    assert "4 newly hit (&lt;img" in html and ", ...)" in html  # four moved, one named: the rest elided


@pytest.mark.parametrize("lost, note", [(0, "No question changed: the smallest p the exact test can give is 1,"),
                                        (1, "Only 1 question changed: the smallest p the exact test can give is 1,"),
                                        (2, "Only 2 questions changed: the smallest p the exact test can give is 0.5,"),
                                        (5, "Only 5 questions changed: the smallest p the exact test can give is "
                                            "0.0625,"),
                                        (6, None)])
def test_the_verdict_notes_a_change_too_small_to_reach_alpha_in_words(lost, note):
    before = {f"q{i}": 1.0 for i in range(20)}
    after = {q: (0.0 if i < lost else 1.0) for i, q in enumerate(before)}
    v = verdict(before, after, "hit@3")
    assert (v.notes[0].startswith(note) if note else v.notes == ())


@pytest.mark.parametrize("k", [1, 3, 5])
def test_a_low_judged_at_k_warns_only_where_non_relevant_documents_are_labelled(both, k, monkeypatch):
    """On a relevant-only golden set Judged@k is a precision: low whenever k exceeds the gold, and no sign of
    missing labels. Labelling one retrieved non-relevant document of every question (relevance 0) turns it into
    label coverage, and a mean below the bar warns."""
    import copy
    import dataclasses

    j = both.subject.judged_at_k(k)
    assert j["positive_only"] and j["warn"] is False
    result = copy.copy(both.subject)
    gold_pairs = set(zip(result.golden.gold["question_id"], result.golden.gold["doc_id"]))
    run = result.run.sort_values(["question_id", "rank"])[["question_id", "doc_id"]].dropna()
    other = run[[pair not in gold_pairs for pair in zip(run["question_id"], run["doc_id"])]]
    extra = other[other["question_id"].isin(result.golden.answerable)].drop_duplicates("question_id")
    extra = extra.assign(relevance=0)
    gold = pd.concat([result.golden.gold, extra], ignore_index=True)
    result.golden = dataclasses.replace(result.golden, gold=gold)
    judged = result.judged_at_k(k)
    assert not judged["positive_only"] and judged["mean"] > j["mean"]
    assert judged["warn"] is (judged["mean"] < judged["warning_below"])
    import rag_metrics.experiment.result_questions as questions_module  # where judged_at_k reads the bar

    monkeypatch.setattr(questions_module, "JUDGED_WARNING", 1.01)  # every mean below the bar
    assert result.judged_at_k(k)["warn"] is True and both.subject.judged_at_k(k)["warn"] is False


def test_moved_questions_put_the_larger_change_first_within_a_kind():
    # two of each kind: within "worsened" and within "improved" the larger move comes first
    before = pd.Series({"small_down": 0.6, "large_down": 0.9, "small_up": 0.1, "large_up": 0.1})
    after = pd.Series({"small_down": 0.5, "large_down": 0.4, "small_up": 0.2, "large_up": 0.8})
    table = moved_questions(before, after)
    assert list(table["question_id"]) == ["large_down", "small_down", "large_up", "small_up"]


def test_previous_comparable_is_the_newest_earlier_run_not_the_oldest():
    records = [{"id": f"r{i}", "name": f"run{i}", "fingerprint": {"golden": "g", "judge": "j"},
                "summary": {"mrr": 0.5}} for i in range(4)]
    assert hist.previous_comparable(records, "r3")["id"] == "r2"
    assert hist.previous_comparable(records, "r1")["id"] == "r0"


def test_run_times_with_offsets_are_compared_in_utc():
    """10:00 at +09:00 is 01:00 UTC, before 02:00 UTC: the run started at 10:00 in Tokyo is the older one, whatever
    the order given, and its time is stored in UTC; a time without an offset is read as UTC."""
    from rag_metrics.io.logs import RunLog

    log = load_log(OLD)
    tokyo = RunLog(log.run, log.questions, None, {"started_at": "2024-01-01T10:00:00+09:00"})
    london = RunLog(log.run, log.questions, None, {"started_at": "2024-01-01T02:00:00+00:00"})
    naive = RunLog(log.run, log.questions, None, {"started_at": "2024-01-01T01:30:00"})
    assert hist.run_made_at(tokyo) == ("2024-01-01T01:00:00.000000Z", hist.RULE_SETTINGS)
    assert hist.run_made_at(naive)[0] == "2024-01-01T01:30:00.000000Z"
    name = {id(tokyo): "tokyo", id(naive): "naive", id(london): "london"}
    for given in ([london, naive, tokyo], [tokyo, london, naive], [naive, tokyo, london]):
        assert [name[id(r["log"])] for r in hist.order_logs(given)] == ["tokyo", "naive", "london"]


def _first_credited(result, q, k):
    """The rank of the first item of ``q`` the headline judge credits in the top ``k``, from the judged rows."""
    rows = result.judged[result.primary]
    ranks = sorted(int(r) for r, h, qq in zip(rows["rank"], rows["hit"], rows["question_id"]) if qq == q and h and r <= k)
    return ranks[0] if ranks else None


def test_the_question_table_holds_every_answerable_question_changed_first(both, golden):
    table = both.question_table()
    assert list(table.columns) == ["question_id", "question", "type", "bm25_c300o50", "bm25_c400o100", "change"]
    assert sorted(table["question_id"]) == sorted(golden.answerable)
    changed = list(table["change"] != "")
    assert changed == sorted(changed, reverse=True) and sum(changed) == len(both.moved())  # changed first
    moved = dict(zip(both.moved()["question_id"], both.moved()["change"]))
    for row in table.itertuples(index=False):
        assert row.change == moved.get(row.question_id, "")
        assert row.question == golden.questions.at[row.question_id, "question"]
        for result, rank in ((both.baseline, row.bm25_c300o50), (both.subject, row.bm25_c400o100)):
            want = _first_credited(result, row.question_id, 5)
            assert (None if pd.isna(rank) else int(rank)) == want, (row.question_id, result.name)
    unchanged = table.loc[table["change"] == "", "question_id"].tolist()
    assert unchanged == [q for q in golden.answerable if q not in moved]  # the golden set's order within each part


def test_the_question_table_is_written_whole_and_read_back_unchanged(both, tmp_path):
    from rag_metrics.experiment.report_questions import read_question_table

    path = both.write_question_table(tmp_path)
    assert path == tmp_path / "questions.csv"
    pd.testing.assert_frame_equal(read_question_table(path), both.question_table())
    tricky = both.question_table().copy()  # what users' files hold: commas, quotes, line breaks, leading zeros
    tricky.loc[0, ["question_id", "question", "type"]] = ["007", 'a, "b"\nc', ""]
    tricky.to_csv(tmp_path / "tricky.csv", index=False, encoding="utf-8")
    back = read_question_table(tmp_path / "tricky.csv")
    pd.testing.assert_frame_equal(back, tricky)
    assert back.at[0, "question_id"] == "007" and pd.isna(back["bm25_c400o100"]).sum() == \
        pd.isna(tricky["bm25_c400o100"]).sum()


def test_the_question_view_shows_the_head_and_links_the_whole_table(both):
    table = both.question_table()
    html = both.question_view(rows=5, csv="/some/run/questions.csv")._repr_html_()
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    shown = re.findall(r'<tr data-changed="\d"><td[^>]*>([^<]*)</td>', body)
    assert shown == table["question_id"].head(5).tolist()
    assert f"the first 5 of {len(table)} shown" in html and 'href="questions.csv"' in html
    whole = both.question_view()._repr_html_()  # the sample fits under the cap: every row, nothing to link
    assert whole.count("<tr data-changed=") == len(table) and " shown" not in whole and "href=" not in whole
    with pytest.raises(InputError):
        both.question_view(rows=0)
