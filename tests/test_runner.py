"""`rag-metrics run` fails fast and records everything: shape errors not retried and worded for a retriever, every
question failed -> non-zero exit, options reach a factory and the settings, a timeout per call, one run at a time
per partial log, and a log published before the process exited is not run again."""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rag_metrics import InputError
from rag_metrics.cli import main
from rag_metrics.core.files import FileLock
from rag_metrics.io.corpus import data_dir
from rag_metrics.io.logs import load_log
from rag_metrics.retrieval.run_retriever import find_resumable, load_retriever, run_retriever
import rag_metrics.report.build as report_runner
import rag_metrics.report.staging as report_staging
import rag_metrics.retrieval.run_retriever as retrieval_runner

GOLDEN = str(data_dir() / "golden.jsonl")
FIRST = ["q001", "q002", "q003"]


def module(tmp_path, name, source):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")


def test_every_question_failed_exits_1_and_says_why_without_options_run_lacks(tmp_path, monkeypatch, capsys):
    """Documents of the wrong shape: not retried (the same call returns the same), logged, exit 1; the message
    never suggests --field or --preset, which `run` does not have."""
    module(tmp_path, "shapeless", """
        calls = []
        def search(question, k):
            calls.append(question)
            return [{"page": 1, "score": 0.5}]
    """)
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    code = main(["run", "--retriever", "shapeless:search", "--golden", GOLDEN, "--experiment", "e", "--no-progress",
                 "--backoff", "5"])
    assert time.perf_counter() - start < 30  # no 5 s backoff per question: shape errors are not retried
    out, err = capsys.readouterr()
    assert code == 1 and "every question failed (71)" in err and "has no document" in err
    assert "--field" not in out + err and "--preset" not in out + err
    import shapeless

    assert len(shapeless.calls) == 71
    (log,) = (tmp_path / "runs" / "e").glob("*.jsonl")
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert all(r["attempts"] == 1 and "return items with a doc_id" in r["error"] for r in rows)


def test_a_retriever_that_raises_is_retried_then_logged(golden, tmp_path):
    calls = []

    def search(question, k):
        calls.append(question)
        raise ConnectionError("index down")

    summary = run_retriever(search, golden, 2, tmp_path / "r.jsonl", settings={}, retries=2, backoff=0, progress=False,
                            questions=FIRST)
    assert summary["failed"] == FIRST and len(calls) == 9  # 1 + 2 retries each


def test_options_reach_a_factory_and_the_settings(tmp_path, monkeypatch, capsys):
    module(tmp_path, "factory", """
        def make(index="default", k_boost=0, exact=False):
            def search(question, k):
                return [{"doc_id": "expense_policy", "page": 3, "text": f"{index}/{k_boost}/{exact}"}][:k]
            return search

        class Store:
            def __init__(self, name):
                self.name = name
            def search(self, question, k):
                return [{"doc_id": "faq_ja", "page": 2, "text": self.name}]
    """)
    monkeypatch.chdir(tmp_path)
    args = ["run", "--retriever", "factory:make", "--golden", GOLDEN, "--no-progress"]
    assert main([*args, "--experiment", "a", "--option", "index=v2", "--option", "k_boost=3"]) == 0
    assert main([*args, "--experiment", "b", "--option", "index=v3", "--option", "exact=true"]) == 0
    (a,), (b,) = (tmp_path / "runs" / "a").glob("*.jsonl"), (tmp_path / "runs" / "b").glob("*.jsonl")
    sa, sb = (json.loads(Path(f"{p}.settings.json").read_text()) for p in (a, b))
    assert sa["options"] == {"index": "v2", "k_boost": 3} and sb["options"] == {"index": "v3", "exact": True}
    assert load_log(a).run["text"].iloc[0] == "v2/3/False" and load_log(b).run["text"].iloc[0] == "v3/0/True"
    assert main([*args, "--experiment", "c", "--option", "colour=red"]) == 2
    assert "cannot be called with the options ['colour']" in capsys.readouterr().err
    store = load_retriever("factory:Store", name="s1")
    assert store("q", 1) == [{"doc_id": "faq_ja", "page": 2, "text": "s1"}]


def test_a_timeout_per_call(golden, tmp_path):
    def slow(question, k):
        if question == golden.questions.at["q002", "question"]:
            time.sleep(5)
        return [{"doc_id": "faq_ja", "page": 1}]

    start = time.perf_counter()
    summary = run_retriever(slow, golden, 2, tmp_path / "t.jsonl", settings={}, retries=1, backoff=0, timeout=0.2,
                            workers=2, progress=False, questions=FIRST)
    assert time.perf_counter() - start < 3  # one slow question does not hold the run
    assert summary["failed"] == ["q002"]
    error = load_log(tmp_path / "t.jsonl").questions.set_index("question_id").at["q002", "error"]
    assert error.startswith("CallTimeout: no result within 0.2 s")
    settings = json.loads((tmp_path / "t.jsonl.settings.json").read_text())
    assert settings["timeout_s"] == 0.2
    assert json.loads((tmp_path / "t.jsonl").read_text().splitlines()[1])["attempts"] == 2  # a timeout is retried


_HOLDER = """
import sys, time
from rag_metrics.core.files import FileLock
lock = FileLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_a_second_run_refuses_naming_the_first(golden, tmp_path):
    out = tmp_path / "run.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, f"{out}.partial.lock"], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError, match=rf"run.jsonl.partial: another run \(process {holder.pid}\) is writing "
                                             rf"this log; wait for it to finish, or stop it \(kill {holder.pid}\)"):
            run_retriever(lambda q, k: [], golden, 2, out, settings={}, progress=False, questions=FIRST)
        assert not out.exists() and not Path(f"{out}.partial").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder is gone (killed: the system released its lock): the run proceeds
    summary = run_retriever(lambda q, k: [{"doc_id": "faq_ja"}], golden, 2, out, settings={}, progress=False,
                            questions=FIRST)
    assert summary["questions"] == 3 and not Path(f"{out}.partial.lock").exists()


def test_two_cli_runs_of_one_experiment_at_once(tmp_path, monkeypatch):
    """The second finds the first's partial log (same settings) and refuses instead of appending to it."""
    module(tmp_path, "slowpoke", """
        import pathlib, time
        def search(question, k):  # holds the run until the test lets it go
            while not pathlib.Path("go").exists():
                time.sleep(0.05)
            return [{"doc_id": "faq_ja", "page": 2}]
    """)
    cmd = [sys.executable, "-m", "rag_metrics.cli", "run", "--retriever", "slowpoke:search", "--golden", GOLDEN,
           "--experiment", "e", "--workers", "1", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    first = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not list((tmp_path / "runs" / "e").glob("*.partial.lock")) and time.time() < deadline:
            time.sleep(0.05)
        second = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 2, second.stderr
        assert f"another run (process {first.pid}) is writing this log" in second.stderr
    finally:
        (tmp_path / "go").write_text("")
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    (log,) = (tmp_path / "runs" / "e").glob("*.jsonl")
    assert len(log.read_text().splitlines()) == 71  # one line per question, nobody appended


def test_a_run_published_before_exit_is_not_started_over(golden, tmp_path):
    calls = []

    def search(question, k):
        calls.append(question)
        return [{"doc_id": "faq_ja", "page": 2}]

    folder = tmp_path / "runs"
    out = folder / "20260101T000000Z.jsonl"
    settings = {"retriever": "x"}
    run_retriever(search, golden, 2, out, settings=settings, progress=False, questions=FIRST)
    # killed between publishing and cleaning up: the partial's settings are still there
    Path(f"{out}.partial.settings.json").write_text(Path(f"{out}.settings.json").read_text())
    calls.clear()
    assert find_resumable(folder, settings, golden, 2, FIRST) == out
    summary = run_retriever(search, golden, 2, out, settings=settings, progress=False, questions=FIRST)
    assert summary["complete"] and summary["questions"] == 3 and calls == []
    assert not Path(f"{out}.partial.settings.json").exists()
    with pytest.raises(InputError, match="the log exists, written by another run"):
        run_retriever(search, golden, 3, out, settings=settings, progress=False, questions=FIRST)


def test_cli_says_a_published_run_is_complete(tmp_path, monkeypatch, capsys):
    module(tmp_path, "fine", """
        def search(question, k):
            return [{"doc_id": "faq_ja", "page": 2}]
    """)
    monkeypatch.chdir(tmp_path)
    args = ["run", "--retriever", "fine:search", "--golden", GOLDEN, "--experiment", "e", "--no-progress"]
    assert main(args) == 0
    (log,) = (tmp_path / "runs" / "e").glob("*.jsonl")
    Path(f"{log}.partial.settings.json").write_text(Path(f"{log}.settings.json").read_text())
    capsys.readouterr()
    assert main(args) == 0
    assert "is complete already" in capsys.readouterr().out
    assert list((tmp_path / "runs" / "e").glob("*.jsonl")) == [log]


def test_items_without_a_document_need_gold_chunks(golden, tmp_path):
    summary = run_retriever(lambda q, k: [{"chunk_id": "c1"}], golden, 2, tmp_path / "c.jsonl", settings={},
                            retries=0, progress=False, questions=FIRST)
    assert summary["failed"] == FIRST
    error = load_log(tmp_path / "c.jsonl").questions["error"].iloc[0]
    assert "a chunk_id ('c1') and no doc_id, and the golden set has no gold chunk IDs" in error


def test_lock_is_released_when_the_run_raises(golden, tmp_path):
    def boom(question, k):
        raise KeyboardInterrupt

    out = tmp_path / "k.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_retriever(boom, golden, 2, out, settings={}, workers=1, progress=False, questions=FIRST)
    with FileLock(f"{out}.partial.lock", blocking=False):  # free again
        pass


def test_a_longer_list_is_cut_to_k_and_said_so_and_rising_scores_are_named(tmp_path, monkeypatch, capsys):
    """A retriever that returns more than k items: the log keeps the first k in its order, its settings record how
    many each question returned, the terminal says so once; a retriever whose scores rise down its list (worst
    first) is warned about by name, with the questions it did it for."""
    module(tmp_path, "wordy", """
        def search(question, k):
            n = 8 if "deadline" in question else k  # only some questions get a longer list
            scores = [0.1 * (i + 1) for i in range(n)]  # rising: lowest score first
            if "deadline" not in question:
                scores = scores[::-1]
            return [{"doc_id": "expense_policy", "page": i + 1, "score": s} for i, s in enumerate(scores)]
    """)
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--retriever", "wordy:search", "--golden", GOLDEN, "--experiment", "e", "--no-progress",
                 "-k", "5"])
    out, err = capsys.readouterr()
    (log,) = (tmp_path / "runs" / "e").glob("*.jsonl")
    settings = json.loads(Path(f"{log}.settings.json").read_text(encoding="utf-8"))
    cut = {q: n for q, n in settings["returned"].items()}
    assert code == 0 and cut and set(cut.values()) == {8}
    assert settings["kept"] == "the first 5 items of each list, in the retriever's order"
    assert settings["scores_rise"] == list(cut)  # exactly the questions that got the rising, longer list
    records = {json.loads(line)["question_id"]: json.loads(line) for line in log.read_text().splitlines()}
    for qid, rec in records.items():
        assert len(rec["retrieved"]) == 5
        if qid in cut:  # the first five of the eight, in the retriever's order: its worst
            assert [i["page"] for i in rec["retrieved"]] == [1, 2, 3, 4, 5]
    assert out.count("got more than 5 items (up to 8)") == 1
    assert f"{len(cut)} of {len(records)} question(s)" in out
    assert err.count("warning: retriever 'wordy:search' lists its items lowest score first") == 1
    assert "the first 5 kept are its worst" in err


def test_scores_that_rise_only_past_k_are_still_named(tmp_path, monkeypatch, capsys):
    """A longer list whose scores rise over the whole list but are flat in its first k ([0.1, 0.1, 0.1, 0.9], k=3):
    the retriever still lists lowest score first, so the settings record it and the terminal warns."""
    module(tmp_path, "rising_tail", """
        def search(question, k):
            return [{"doc_id": "expense_policy", "page": i + 1, "score": s}
                    for i, s in enumerate([0.1, 0.1, 0.1, 0.9])]
    """)
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--retriever", "rising_tail:search", "--golden", GOLDEN, "--experiment", "e",
                 "--no-progress", "-k", "3"])
    _, err = capsys.readouterr()
    (log,) = (tmp_path / "runs" / "e").glob("*.jsonl")
    settings = json.loads(Path(f"{log}.settings.json").read_text(encoding="utf-8"))
    assert code == 0 and set(settings["returned"].values()) == {4}
    assert settings["scores_rise"] == list(settings["returned"])
    assert err.count("warning: retriever 'rising_tail:search' lists its items lowest score first") == 1


def test_rising_questions_are_listed_up_to_five_then_cut_with_dots():
    from rag_metrics.retrieval.run_retriever import cut_notices

    def warning(n):
        (line,) = cut_notices({"questions": 10, "scores_rise": [f"q{i}" for i in range(1, n + 1)]}, 3, "r")
        return line

    assert "(q1, q2, q3, q4, q5)" in warning(5) and " ..." not in warning(5)
    assert "(q1, q2, q3, q4, q5 ...)" in warning(6) and "q6" not in warning(6)


def test_cut_settings_keeps_rising_and_longer_lists_apart():
    """One question's list rose but had exactly k items (scores_rise only), another's was longer and fell (returned
    only): each is recorded under its own key and no other."""
    from rag_metrics.retrieval.run_retriever import cut_settings

    records = [{"question_id": "q1", "retrieved": [], "scores_rise": True},
               {"question_id": "q2", "retrieved": [], "returned": 8}]
    settings = cut_settings(records, 3)
    assert settings["scores_rise"] == ["q1"] and settings["returned"] == {"q2": 8}


@pytest.mark.parametrize("scores, rises", [
    ([0.1, 0.2, 0.3], True), ([0.1, 0.1, 0.2], True),  # never falls, last above first
    ([0.3, 0.2, 0.1], False), ([0.2, 0.2, 0.2], False),  # best first; all equal says nothing
    ([0.1, 0.3, 0.2], False), ([0.1], False), ([], False),  # falls once; too short to say
    ([0.1, None, 0.3], False), ([0.1, float("nan"), 0.3], False), ([True, 2.0], False),  # a missing/odd score
])
def test_scores_rise_at_its_edges(scores, rises):
    from rag_metrics.retrieval.run_retriever import scores_rise

    items = [{"doc_id": "d", "score": s} if s is not None else {"doc_id": "d"} for s in scores]
    assert scores_rise(items) is rises


def test_a_list_of_exactly_k_is_not_reported_as_cut(golden, tmp_path):
    def search(question, k):
        return [{"doc_id": "expense_policy", "page": i + 1, "score": 1.0 - i / 10} for i in range(k)]

    summary = run_retriever(search, golden, 3, tmp_path / "log.jsonl", progress=False, questions=FIRST)
    settings = json.loads(Path(f"{tmp_path / 'log.jsonl'}.settings.json").read_text(encoding="utf-8"))
    assert "returned" not in settings and "scores_rise" not in settings and "returned" not in summary


# ---- at the edges, by value ----------------------------------------------------------
# The two runners at their edges, by value: how many times a call is tried and how long it waits in between, what
# a retriever may return, how a report folder is named when its stamp is taken, and what a build that breaks leaves.


FIRST_TWO = ["q001", "q002"]


class _Clock:
    """The runner module's ``time`` with ``sleep`` recorded instead of slept (only the runner's own calls: other
    threads of the test process keep the real ``time.sleep``)."""

    def __init__(self):
        self.waits = []

    def sleep(self, seconds):
        self.waits.append(seconds)

    def __getattr__(self, name):
        import time

        return getattr(time, name)


@pytest.mark.parametrize("retries", [0, 1, 3])
def test_a_failing_retriever_is_called_one_plus_retries_times_with_doubling_waits(golden, tmp_path, monkeypatch,
                                                                                  retries):
    calls, clock = [], _Clock()
    monkeypatch.setattr(retrieval_runner, "time", clock)

    def down(question, k):
        calls.append(question)
        raise ConnectionError("down")

    out = tmp_path / "run.jsonl"
    summary = run_retriever(down, golden, 2, out, settings={}, retries=retries, backoff=0.5, workers=1,
                            progress=False, questions=["q001"])
    assert summary["failed"] == ["q001"]
    assert len(calls) == 1 + retries
    assert clock.waits == [0.5 * 2 ** i for i in range(retries)]
    assert json.loads(out.read_text().splitlines()[0])["attempts"] == 1 + retries


def test_the_default_is_three_retries(golden, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(retrieval_runner, "time", _Clock())

    def down(question, k):
        calls.append(question)
        raise ConnectionError("down")

    run_retriever(down, golden, 2, tmp_path / "run.jsonl", settings={}, workers=1, progress=False, questions=["q001"])
    assert len(calls) == 4


@pytest.mark.parametrize("n_items", [1, 2, 3, 4])
def test_a_retriever_returning_more_than_k_items_is_cut_to_the_top_k(golden, tmp_path, n_items):
    items = [{"doc_id": "faq_ja", "page": p, "score": 10 - p} for p in range(1, n_items + 1)]
    out = tmp_path / "run.jsonl"
    summary = run_retriever(lambda q, k: items, golden, 2, out, settings={}, retries=0, workers=1, progress=False,
                            questions=FIRST_TWO)
    assert summary["failed"] == []
    run = load_log(out).run
    assert run.groupby("question_id").size().to_dict() == {q: min(n_items, 2) for q in FIRST_TWO}
    assert run[run["question_id"] == "q001"]["pages"].tolist() == [(p,) for p in range(1, min(n_items, 2) + 1)]


def test_execute_notebook_starts_a_dying_kernel_again_up_to_attempts(tmp_path, monkeypatch):
    import papermill

    tries = []

    def flaky(*args, **kwargs):
        tries.append(1)
        if len(tries) < 3:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "ran"

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    assert report_runner.execute_notebook(tmp_path / "a.ipynb", tmp_path / "b.ipynb", attempts=3) == "ran"
    assert len(tries) == 3
    tries.clear()
    with pytest.raises(RuntimeError, match="kernel_info"):
        report_runner.execute_notebook(tmp_path / "a.ipynb", tmp_path / "b.ipynb", attempts=2)
    assert len(tries) == 2


def test_a_report_is_published_under_its_stamp_then_stamp_2(tmp_path):
    stamp = "20260101T000000Z"
    names = []
    for token in ("a", "b", "c"):
        staging = tmp_path / f".{token}.partial"
        staging.mkdir()
        (staging / "summary.json").write_text("{}")  # a built report is never empty
        names.append(report_staging.publish(staging, tmp_path, stamp).name)
    assert names == [stamp, f"{stamp}-2", f"{stamp}-3"]


def test_a_build_that_breaks_before_publishing_leaves_no_staging_folder(tmp_path, monkeypatch):
    nb = tmp_path / "n.ipynb"
    nb.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(report_runner, "_run_one", broken)
    reports = tmp_path / "reports"
    with pytest.raises(OSError, match="disk full"):
        report_runner.build_report("x", {}, [nb], reports_dir=reports, progress_bar=False)
    assert [p.name for p in reports.rglob("*") if p.name.endswith(".partial")] == []


# ---- what `run` decides before any call (rag_metrics.retrieval.run_retriever.make_search, log_path, first_error) ---

def test_make_search_takes_only_the_built_in_options_and_needs_pages(tmp_path):
    from rag_metrics.retrieval.run_retriever import BUILTIN_OPTIONS, make_search

    pages = str(data_dir() / "corpus")
    with pytest.raises(InputError, match=r"unknown option\(s\) \['model'\] for the built-in retriever; expected "
                                         "size, overlap, unit, heading"):
        make_search("bm25", {"size": 300, "model": "x"}, pages)
    with pytest.raises(InputError, match="give --pages PATH"):
        make_search("bm25", {"size": 300})
    search, settings = make_search("bm25", {"size": 300, "overlap": 50}, pages)
    assert set(BUILTIN_OPTIONS) == {"size", "overlap", "unit", "heading"}
    assert settings["retriever"] == "bm25" and settings["corpus"] == pages
    assert settings["options"]["size"] == 300 and settings["options"]["chunking"] == "char 300/50"
    assert search("expense claim deadline", 2) and len(search("expense claim deadline", 2)) == 2


def test_make_search_of_your_own_retriever_refuses_pages_and_records_its_options(tmp_path, monkeypatch):
    from rag_metrics.retrieval.run_retriever import make_search

    module(tmp_path, "factory_mod", """
        def make(depth=1):
            return lambda question, k: [{"doc_id": "d", "page": depth}]
    """)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="--pages is the corpus of the built-in retrievers"):
        make_search("factory_mod:make", {}, "pages.jsonl")
    search, settings = make_search("factory_mod:make", {"depth": 3})
    assert settings == {"retriever": "factory_mod:make", "options": {"depth": 3}} and search("q", 1)[0]["page"] == 3


def test_log_path_resumes_a_partial_log_or_names_a_new_one_by_utc_time(tmp_path):
    import datetime as dt

    from rag_metrics.io.golden import load_golden
    from rag_metrics.retrieval.run_retriever import log_path

    golden = load_golden(GOLDEN)
    now = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    fresh = log_path(tmp_path, "exp", {"retriever": "x"}, golden, 5, now=now)
    assert fresh == tmp_path / "exp" / "20260102T030405Z.jsonl"
    with pytest.raises(InputError, match="experiment name"):
        log_path(tmp_path, "../up", {"retriever": "x"}, golden, 5, now=now)
    settings = {"retriever": "one:search", "options": {}}
    assert log_path(tmp_path, "exp", settings, golden, 5, now=now) == fresh, "nothing to resume"
    partial = tmp_path / "exp" / "20250101T000000Z.jsonl.partial"  # an earlier run stopped with these settings
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text("", encoding="utf-8")
    side = Path(str(partial) + ".settings.json")
    side.write_text(json.dumps(retrieval_runner._run_settings(settings, 5, golden, retrieval_runner._todo(golden))),
                    encoding="utf-8")
    assert log_path(tmp_path, "exp", settings, golden, 5, now=now) == tmp_path / "exp" / "20250101T000000Z.jsonl"
    assert log_path(tmp_path, "exp", settings, golden, 5, resume=False, now=now) == fresh
    assert log_path(tmp_path, "exp", settings, golden, 4, now=now) == fresh, "another k: not the same run"


def test_first_error_is_the_first_logged_one_cut_to_300_characters(tmp_path):
    from rag_metrics.retrieval.run_retriever import first_error

    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in [{"question_id": "q1", "items": []},
                                                         {"question_id": "q2", "error": "E" * 400},
                                                         {"question_id": "q3", "error": "second"}]))
    assert first_error(log) == "E" * 300
    log.write_text(json.dumps({"question_id": "q1"}) + "\n")
    assert first_error(log) is None
    assert first_error(tmp_path / "missing.jsonl") is None
    log.write_text("not json\n")
    assert first_error(log) is None
