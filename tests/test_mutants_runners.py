"""The two runners at their edges, by value: how many times a call is tried and how long it waits in between, what
a retriever may return, how a report folder is named when its stamp is taken, and what a build that breaks leaves."""

import json

import pytest

import rag_metrics.report.runner as report_runner
import rag_metrics.retrieval.runner as retrieval_runner
from rag_metrics.io.logs import load_log
from rag_metrics.retrieval.runner import run_retriever

FIRST = ["q001", "q002"]


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
                            questions=FIRST)
    assert summary["failed"] == []
    run = load_log(out).run
    assert run.groupby("question_id").size().to_dict() == {q: min(n_items, 2) for q in FIRST}
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
        names.append(report_runner._publish(staging, tmp_path, stamp).name)
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
