"""A report never gives a confident wrong reason (issue 47, items 1 and 2): a log holding part of the questions is
compared on the questions both runs logged and diagnosed first as partial, kept out of the trend, its unlogged
questions one drill-down; the verdict box speaks only of the two runs it compares."""

import json

import pytest

from rag_metrics.experiment import history as hist
from rag_metrics.experiment.content import experiment_report
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log

EXAMPLES = data_dir() / "examples"
OLD = EXAMPLES / "bm25_c300o50.jsonl"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(data_dir() / "corpus")


@pytest.fixture(scope="module")
def golden(corpus):
    return load_golden(data_dir() / "golden.jsonl", corpus=corpus)


def write_log(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def records():
    return [json.loads(line) for line in OLD.read_text(encoding="utf-8").splitlines()]


def partial_report(tmp_path, golden, corpus, keep: int):
    """The sample's first log as the baseline; the same log cut to its first ``keep`` questions as the subject."""
    full = write_log(tmp_path / "full.jsonl", records())
    part = write_log(tmp_path / "part.jsonl", records()[:keep])
    return experiment_report(golden, [load_log(full), load_log(part)], corpus, order="given",
                             history_dir=tmp_path / "history", n_resamples=200)


def test_a_log_of_12_questions_is_compared_on_those_12_and_diagnosed_first(tmp_path, golden, corpus):
    rep = partial_report(tmp_path, golden, corpus, keep=12)
    both = rep.coverage["both"]
    assert len(both) == 12 and rep.verdict.n == 12
    assert (rep.verdict.outcome, rep.verdict.delta, rep.verdict.wins, rep.verdict.losses) == ("within noise", 0, 0, 0)
    whole = rep.coverage["all"]
    assert whole.outcome == "worse" and whole.delta < -0.5  # what the report said before: a collapse
    first = rep.diagnosis().findings[0]
    assert first.kind == "partial log" and first.run == "part"
    missing = rep.coverage["subject_only_missing"]
    assert first.count == len(missing) == rep.coverage["baseline_logged"] - 12 and set(first.questions) == set(missing)
    assert f"part logged 12 of the {rep.coverage['questions']} questions, {len(missing)} fewer than full" \
        in first.sentence
    assert f"compares the 12 question(s) both logged" in first.sentence and f"{whole.delta:+.3f} (worse)" \
        in first.sentence
    assert rep.banner_findings()[0] is first
    assert "part logged 12 of" in rep.banner()._repr_html_()


def test_the_unlogged_questions_never_move_and_make_one_drill_down(tmp_path, golden, corpus):
    rep = partial_report(tmp_path, golden, corpus, keep=12)
    assert len(rep.moved()) == 0  # 12 of 12 hit in both runs; nothing else was compared
    absent = set(rep.not_logged())
    assert absent and not absent & set(rep.remaining_misses())
    groups = [g for g in rep.drilldown_groups(cap=100) if g["why"] == "not logged by part"]
    assert len(groups) == 1 and 1 + len(groups[0]["others"]) == len(absent)


def test_a_partial_run_stays_out_of_the_trend_unless_asked(tmp_path, golden, corpus):
    rep = partial_report(tmp_path, golden, corpus, keep=12)
    assert [t["run"] for t in rep.trend()] == ["full"]
    assert [t["run"] for t in rep.trend(partial_runs=True)] == ["full", "part"]


@pytest.mark.parametrize("keep,is_partial", [(35, True), (36, False)])
def test_partial_means_a_minority_of_the_questions(tmp_path, golden, corpus, keep, is_partial):
    rep = partial_report(tmp_path, golden, corpus, keep=keep)
    n = len(rep.subject_record["per_query"])
    assert n == 71  # the boundary is half of it: 35 of 71 is a minority, 36 is not
    assert hist.partial(rep.subject_record) is is_partial
    assert (2 * len(hist.logged(rep.subject_record)) < n) is is_partial


def test_runs_that_logged_the_same_questions_have_no_coverage_finding(tmp_path, golden, corpus):
    full = write_log(tmp_path / "a.jsonl", records())
    other = write_log(tmp_path / "b.jsonl", records())
    rep = experiment_report(golden, [load_log(full), load_log(other)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    assert rep.coverage is None and all(f.kind != "partial log" for f in rep.diagnosis().findings)


def test_the_baseline_missing_questions_is_named_the_other_way(tmp_path, golden, corpus):
    full = write_log(tmp_path / "full.jsonl", records())
    part = write_log(tmp_path / "part.jsonl", records()[:50])
    rep = experiment_report(golden, [load_log(part), load_log(full)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    assert rep.verdict.n == 50 and rep.coverage["subject_only_missing"] == []
    first = rep.diagnosis().findings[0]
    assert first.kind == "partial log" and first.sentence.startswith(
        f"part did not log {len(rep.coverage['baseline_only_missing'])} question(s) full logged")


def test_the_box_keeps_to_its_two_runs(tmp_path, golden, corpus):
    same = records()
    for rec in same:  # the oldest run returns one list for every question: a pattern of its own
        rec["retrieved"] = same[0]["retrieved"]
    oldest = write_log(tmp_path / "oldest.jsonl", same)
    a = write_log(tmp_path / "a.jsonl", records())
    changed = records()
    changed[0]["retrieved"] = changed[0]["retrieved"][::-1]  # another log, so another run
    b = write_log(tmp_path / "b.jsonl", changed)
    rep = experiment_report(golden, [load_log(oldest), load_log(a), load_log(b)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    assert rep.baseline_record["name"] == "a" and rep.subject.name == "b"
    about_oldest = [f for f in rep.diagnosis().findings if f.run == "oldest"]
    assert about_oldest  # the diagnosis section still says it, under its run's name
    assert all(f.run in ("a", "b", None) for f in rep.banner_findings())
    assert "oldest" not in rep.banner()._repr_html_()
