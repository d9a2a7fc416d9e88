"""Run history: save, load, diff round trip; refusal on a different golden set or judge; the CLI."""

import datetime as dt

import pandas as pd
import pytest

from rag_metrics import evaluate
from rag_metrics.cli import main
from rag_metrics import NotComparableError
from rag_metrics.experiment.history import diff, list_runs, load_run, save_run
from rag_metrics.judging.judges import MarkerJudge, OverlapJudge

GOLDEN = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"]})


def _run(first_docs):
    return pd.DataFrame({"question_id": ["q1", "q2", "q3"], "rank": [1, 1, 1], "doc_id": first_docs})


def _save(tmp_path, docs, name, *, golden=GOLDEN, judge=OverlapJudge(), chunking="c400o100", second=0):
    ev = evaluate(golden, _run(docs), ["hit@1", "mrr"])
    now = dt.datetime(2026, 11, 29, 12, 0, second, tzinfo=dt.timezone.utc)
    return save_run(ev, tmp_path, name=name, golden=golden, corpus="v1", chunking=chunking, judge=judge,
                    config={"retriever": "bm25"}, now=now)


def test_round_trip_and_diff(tmp_path):
    p1 = _save(tmp_path, ["a", "x", "c"], "baseline")
    p2 = _save(tmp_path, ["a", "b", "x"], "heading", chunking="heading", second=1)
    rec = load_run("baseline", tmp_path)
    assert rec["summary"]["hit@1"] == {"mean": 2 / 3, "evaluated": 3, "excluded": 0, "excluded_ids": []}
    assert rec["per_query"]["q2"]["hit@1"] == 0.0 and rec["config"] == {"retriever": "bm25"}
    assert load_run(p1)["id"] == rec["id"]
    d = diff(p1, p2)
    assert d.measures.loc["hit@1", "delta"] == pytest.approx(0.0)
    assert d.newly("newly hit") == ["q2"] and d.newly("newly missed") == ["q3"]
    assert d.differs == ["chunking"]  # allowed: it is what the experiment changed
    assert list(list_runs(tmp_path)["name"]) == ["baseline", "heading"]


def test_refuses_different_golden_set_or_judge(tmp_path):
    p1 = _save(tmp_path, ["a", "x", "c"], "one")
    other_gold = GOLDEN.assign(doc_id=["a", "b", "d"])
    p2 = _save(tmp_path, ["a", "x", "c"], "two", golden=other_gold, second=1)
    with pytest.raises(NotComparableError, match=r"refusing to compare .*: they differ in golden"):
        diff(p1, p2)
    p3 = _save(tmp_path, ["a", "x", "c"], "three", judge=MarkerJudge(), second=2)
    with pytest.raises(NotComparableError, match=r"differ in judge .*'judge': 'overlap'.*'judge': 'marker'"):
        diff(p1, p3)
    assert diff(p1, p3, force=True).differs == ["judge"]


def test_history_cli(tmp_path, capsys):
    _save(tmp_path, ["a", "x", "c"], "baseline")
    _save(tmp_path, ["a", "b", "x"], "better", second=1)
    _save(tmp_path, ["a", "b", "c"], "marker", judge=MarkerJudge(), second=2)
    assert main(["history", "--dir", str(tmp_path), "list"]) == 0
    assert "baseline" in capsys.readouterr().out
    assert main(["history", "--dir", str(tmp_path), "show", "better"]) == 0
    assert "hit@1" in capsys.readouterr().out
    assert main(["history", "--dir", str(tmp_path), "diff", "baseline", "better"]) == 0
    out = capsys.readouterr().out
    assert "newly hit (1): q2" in out and "newly missed (1): q3" in out
    assert main(["history", "--dir", str(tmp_path), "diff", "baseline", "marker"]) == 2
    assert "refusing to compare" in capsys.readouterr().err
    assert main(["history", "--dir", str(tmp_path), "diff", "baseline", "marker", "--force"]) == 0
    assert main(["history", "--dir", str(tmp_path), "show", "nope"]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["trailing\n", "x" * 101, "", "../up", "a b", "-dash", "ünï"])
def test_run_and_experiment_names_are_checked_in_one_place(tmp_path, name):
    from rag_metrics import InputError
    from rag_metrics.report.build import build_report

    ev = evaluate(pd.DataFrame({"question_id": ["q"], "doc_id": ["d"]}),
                  pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": ["d"]}), ["mrr"])
    with pytest.raises(InputError, match="use 1-100 letters, digits"):
        save_run(ev, tmp_path / "h", name=name)
    with pytest.raises(InputError, match="experiment name .*use 1-100 letters, digits"):
        build_report(name, {}, [tmp_path / "none.ipynb"], reports_dir=tmp_path / "r", progress_bar=False)
    assert not (tmp_path / "h").exists() and not (tmp_path / "r").exists()


def test_a_broken_history_file_is_named(tmp_path, capsys):
    from rag_metrics.cli import main

    ev = evaluate(pd.DataFrame({"question_id": ["q"], "doc_id": ["d"]}),
                  pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": ["d"]}), ["mrr"])
    save_run(ev, tmp_path, name="ok")
    (tmp_path / "20260101T000000000000Z_broken.json").write_text('{"id": "x", ')
    (tmp_path / "20260102T000000000000Z_empty.json").write_text("")  # a kill mid-write, before writes were atomic
    assert main(["history", "--dir", str(tmp_path), "list"]) == 0  # named and skipped, the others listed
    out, err = capsys.readouterr()
    assert "warning: skipped" in err and "20260101T000000000000Z_broken.json:1: malformed JSON" in err
    assert "20260102T000000000000Z_empty.json:1: malformed JSON" in err and "Move or delete the file" in err
    assert "_ok" in out and "broken" not in out
    assert main(["history", "--dir", str(tmp_path), "show", "20260101T000000000000Z_broken"]) == 2  # asked for by name


def test_an_id_prefix_shared_by_two_runs_is_ambiguous_and_a_full_id_is_not(tmp_path):
    from rag_metrics import InputError

    first = _save(tmp_path, ["a", "x", "c"], "one")
    _save(tmp_path, ["a", "b", "c"], "two", second=1)
    with pytest.raises(InputError, match="ambiguous"):
        load_run("20261129T1200", tmp_path)  # exactly two matches: one more than a unique prefix
    assert load_run(first.stem, tmp_path)["name"] == "one"
    assert load_run("two", tmp_path)["name"] == "two"


def test_a_graded_value_that_rises_is_improved_and_one_that_falls_is_worsened(tmp_path):
    # MRR moves by a graded step (1/2 <-> 1), not 0 <-> 1: the change is improved / worsened, never newly hit.
    golden = pd.DataFrame({"question_id": ["q1", "q2"], "doc_id": ["a", "b"]})
    runs = [pd.DataFrame({"question_id": ["q1", "q1", "q2"], "rank": [1, 2, 1], "doc_id": ["x", "a", "b"]}),
            pd.DataFrame({"question_id": ["q1", "q2", "q2"], "rank": [1, 1, 2], "doc_id": ["a", "x", "b"]})]
    paths = [save_run(evaluate(golden, run, ["mrr"]), tmp_path, name=f"r{i}",
                      now=dt.datetime(2026, 11, 29, 12, 0, i, tzinfo=dt.timezone.utc)) for i, run in enumerate(runs)]
    flips = diff(*paths).flips.set_index("question_id")
    assert flips.loc["q1", "change"] == "improved" and flips.loc["q2", "change"] == "worsened"
    assert flips.loc["q1", ["previous", "current"]].tolist() == [0.5, 1.0]


@pytest.mark.parametrize("label, name", [
    ("bm25 run:1", "bm25-run-1"),             # space and colon, one dash for the run of them
    ("a/b@c[d]^e\\f", "a-b-c-d-e-f"),          # characters that fall between '.' and '_' in ASCII
    ("A.b_c-D9", "A.b_c-D9"),                 # the kept characters: letters, digits, '.', '_', '-'
    ("..-x-..", "x"),                         # leading and trailing dots and dashes are stripped
    ("-.run.-", "run"),
    ("???", "run"),                            # nothing left: the default name
])
def test_a_log_label_becomes_a_run_name_of_letters_digits_dots_underscores_and_dashes(label, name):
    from rag_metrics.experiment.history import safe_name

    assert safe_name(label) == name


def test_a_run_name_from_a_label_is_cut_at_100_characters():
    from rag_metrics.core.errors import check_name
    from rag_metrics.experiment.history import safe_name

    assert safe_name("x" * 100) == "x" * 100
    assert safe_name("y" * 101) == "y" * 100
    assert safe_name("z" * 99 + "ab") == "z" * 99 + "a"
    check_name(safe_name("w" * 150), what="run name")  # what it gives is a name save_run takes


def test_the_trend_follows_the_runs_comparable_with_the_newest_not_the_oldest(tmp_path):
    from rag_metrics.experiment.history import experiment_history, history_table, trend

    _save(tmp_path, ["a", "x", "c"], "overlap_old")
    _save(tmp_path, ["a", "b", "c"], "marker_mid", judge=MarkerJudge(), second=1)
    _save(tmp_path, ["a", "b", "x"], "marker_new", judge=MarkerJudge(), second=2)
    records = experiment_history(tmp_path)
    assert [p["run"] for p in trend(records, "hit@1", n_resamples=200)] == ["marker_mid", "marker_new"]
    table = history_table(records, ["hit@1"], n_resamples=200)
    assert table["comparable"].tolist() == [False, True, True]
    assert table["role"].tolist() == ["", "", "subject"]
