"""A report never gives a confident wrong reason (issue 47, items 1 and 2): a log holding part of the questions is
compared on the questions both runs logged and diagnosed first as partial, kept out of the trend, its unlogged
questions one drill-down; the verdict box speaks only of the two runs it compares."""

import json

import pytest

from rag_metrics.experiment import history as hist
from rag_metrics.experiment.experiment_report import experiment_report
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


# ---- item 3: credit that rests on the page window or on one ruler is marked ------------------------------------

from rag_metrics.experiment.confidence import credit_note  # noqa: E402
from rag_metrics.experiment.evaluate import evaluate_log  # noqa: E402

AUDIT_TEXT = "The finance team audits a random sample of claims every quarter."  # on expense_policy p.11, q014's gold


def one_item(tmp_path, name, **item):
    rec = {"question_id": "q014", "question": "How often are expense claims audited?",
           "retrieved": [{"doc_id": "expense_policy", **item}]}
    return load_log(write_log(tmp_path / name, [rec]))


@pytest.mark.parametrize("page,note", [(11, ""), (10, "only through the ±1 page window"),
                                       (12, "only through the ±1 page window")])
def test_a_hit_through_the_window_alone_is_marked(tmp_path, golden, corpus, page, note):
    result = evaluate_log(golden, one_item(tmp_path, "log.jsonl", page=page), corpus, ks=(1,))
    assert result.primary == "page" and result.evaluation.per_question["hit@1"]["q014"] == 1.0
    assert credit_note(result, "q014", "hit@1") == note


def test_a_miss_has_no_note_and_the_window_follows_the_judge(tmp_path, golden, corpus):
    far = evaluate_log(golden, one_item(tmp_path, "far.jsonl", page=9), corpus, ks=(1,))
    assert far.evaluation.per_question["hit@1"]["q014"] == 0.0 and credit_note(far, "q014", "hit@1") == ""
    wide = evaluate_log(golden, one_item(tmp_path, "wide.jsonl", page=9), corpus, ks=(1,), window=2)
    assert credit_note(wide, "q014", "mrr") == "only through the ±2 page window"


def test_a_hit_only_one_ruler_sees_is_marked(tmp_path, golden, corpus):
    text_on_p11 = one_item(tmp_path, "t.jsonl", page=2, text=AUDIT_TEXT)  # the page says 2, the text is p.11's
    result = evaluate_log(golden, text_on_p11, corpus, ks=(1,))
    assert result.primary == "overlap" and result.pages["page"].per_question["hit@1"]["q014"] == 0.0
    assert credit_note(result, "q014", "hit@1") == "only the overlap ruler credits it (page does not)"
    near = evaluate_log(golden, one_item(tmp_path, "n.jsonl", page=10, text=AUDIT_TEXT), corpus, ks=(1,))
    assert credit_note(near, "q014", "hit@1") == "only through the ±1 page window"  # logged p.10: window=0 misses
    both = evaluate_log(golden, one_item(tmp_path, "b.jsonl", page=11, text=AUDIT_TEXT), corpus, ks=(1,))
    assert credit_note(both, "q014", "hit@1") == ""


def test_the_sample_reports_q014_as_newly_hit_through_the_window_only(tmp_path, golden, corpus):
    new = EXAMPLES / "bm25_c400o100.jsonl"
    rep = experiment_report(golden, [load_log(OLD), load_log(new)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    moved = rep.moved().set_index("question_id")
    assert moved.loc["q014", "change"] == "newly hit" and moved.loc["q014", "credit"] == \
        "only through the ±1 page window"
    assert moved.loc["q015", "credit"] == ""
    assert "q014 (only through the ±1 page window)" in rep.banner()._repr_html_()


def test_the_rulers_warning_compares_the_questions_both_logged(tmp_path, golden, corpus):
    rep = partial_report(tmp_path, golden, corpus, keep=12)
    changes = rep.ruler_changes()
    assert changes is not None and (changes[rep.measure].abs() < 1e-12).all()  # 12 of 12 hit by every ruler
    assert rep.rulers_apart() is None
    missing = rep.coverage["subject_only_missing"]
    assert f"not logged: {', '.join(missing[:5])} and {len(missing) - 5} more." in rep.diagnosis().findings[0].sentence


@pytest.mark.parametrize("missing, is_partial", [(1, False), (2, False), (3, True)])
def test_exactly_half_logged_is_not_a_minority(missing, is_partial):
    """Audit K19: with an even number of questions, half logged is kept in the trend; fewer is not."""
    record = {"id": "r", "name": "r", "timestamp": "t", "summary": {"hit@5": {}},
              "per_query": {q: {"hit@5": 1.0} for q in ("q1", "q2", "q3", "q4")},
              "config": {"not_logged": ["q4", "q3", "q2"][:missing]}, "fingerprint": {}}
    assert hist.partial(record) is is_partial
    assert hist.logged(record) == ["q1", "q2", "q3", "q4"][:4 - missing]


def test_the_verdict_table_prints_p_as_the_box_does(tmp_path, golden, corpus):
    """Issue 47, item 7: the paired table printed 0.000 where the box said p < 0.001."""
    same = records()
    for rec in same:
        rec["retrieved"] = same[0]["retrieved"]
    worse = write_log(tmp_path / "worse.jsonl", same)
    rep = experiment_report(golden, [load_log(OLD), load_log(worse)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    view = rep.verdict_view()
    assert rep.verdict.p_value < 0.001 and view.loc[rep.measure, "p"] == "< 0.001"
    assert "p &lt; 0.001" in rep.banner()._repr_html_()
    assert view.loc[rep.measure, "p_holm"] == "-"  # the primary measure is decided alone
    others = [m for m in view.index if m != rep.measure]
    assert all(isinstance(v, str) and (v.startswith("< ") or v[0].isdigit()) for v in view.loc[others, "p_holm"])


def test_ids_are_never_broken_across_lines(tmp_path, golden, corpus):
    """Issue 47, item 7: question and document IDs sit in no-wrap elements in the drill-downs and the question table
    (the claims list breaks its text anywhere, so an ID would break mid-word)."""
    import re

    new = EXAMPLES / "bm25_c400o100.jsonl"
    rep = experiment_report(golden, [load_log(OLD), load_log(new)], corpus, order="given",
                            history_dir=tmp_path / "history", n_resamples=200)
    html = rep.explain("q014", "newly hit")._repr_html_() + rep.question_view()._repr_html_()
    tags = list(re.finditer(r'<(strong|code|td|b|span)([^>]*)>(q\d{3}|expense_policy)</\1>', html))
    assert len(tags) >= 3 and {t.group(3) for t in tags} >= {"q014", "expense_policy"}
    assert [t.group(0) for t in tags if "white-space:nowrap" not in t.group(2)] == []
