"""A log file evaluated out of core on Dask (rag_metrics.experiment.distributed_logs): read in byte ranges of whole
records on the workers, judged and evaluated there, per-question values reduced -- equal to one process."""

import json

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("dask.distributed")

from rag_metrics.core.errors import InputError  # noqa: E402
from rag_metrics.experiment import distributed_logs  # noqa: E402
from rag_metrics.experiment.distributed_logs import SplitLogResult  # noqa: E402
from rag_metrics.experiment.evaluate import evaluate_log  # noqa: E402
from rag_metrics.io.corpus import data_dir, load_corpus  # noqa: E402
from rag_metrics.io.golden import load_golden  # noqa: E402
from rag_metrics.io.partitions import line_ranges, lines_before, read_range  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as c:
        yield c


@pytest.fixture(scope="module")
def sample():
    corpus = load_corpus(sample=True)
    golden = load_golden(corpus=corpus, sample=True)
    lines = (data_dir() / "examples" / "bm25_c400o100.jsonl").read_text(encoding="utf-8").splitlines()
    return corpus, golden, lines


def write_log(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def assert_same(local, split):
    """Every per-question value, count and summary equal, bit for bit."""
    assert isinstance(split, SplitLogResult) and not isinstance(local, SplitLogResult)
    assert set(local.pages) == set(split.pages) and local.primary == split.primary
    pairs = [(local.pages[n], split.pages[n]) for n in local.pages] + [(local.document, split.document)]
    if local.chunk is not None or split.chunk is not None:
        pairs.append((local.chunk, split.chunk))
    for a, b in pairs:
        assert a.per_question.equals(b.per_question)
        for m in a.values:
            assert np.array_equal(a.values[m], b.values[m], equal_nan=True)
        assert np.array_equal(a.n_relevant, b.n_relevant) and np.array_equal(a.n_retrieved, b.n_retrieved)
    assert local.summary().equals(split.summary())
    assert local.headline().equals(split.headline())
    pd.testing.assert_frame_equal(local.failures, split.failures)
    assert local.failure_counts().equals(split.failure_counts())
    assert local.missing_questions == split.missing_questions
    assert list(local.unknown_questions) == list(split.unknown_questions)
    assert local.failed_questions == split.failed_questions


def test_ranges_hold_whole_records(sample, tmp_path):
    """Ranges end after a newline: a record (one question) is never cut, whatever the range size -- even one smaller
    than a record gives whole records, one or more per range."""
    _, _, lines = sample
    path = write_log(tmp_path / "log.jsonl", lines)
    for part in (100, 5000, 10**9):
        ranges = line_ranges(path, part)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(open(path, "rb").read())
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        records = []
        for start, stop in ranges:
            data = read_range(path, start, stop)
            assert data.endswith(b"\n")
            records += [json.loads(x)["question_id"] for x in data.decode().splitlines() if x.strip()]
        assert records == [json.loads(x)["question_id"] for x in lines]
    assert len(line_ranges(path, 100)) == len(lines)
    start = line_ranges(path, 5000)[2][0]
    assert lines_before(path, start) == open(path, "rb").read()[:start].count(b"\n")


@pytest.mark.parametrize("part_bytes", [100, 7000])
def test_split_log_equals_one_process(client, sample, tmp_path, monkeypatch, part_bytes):
    """The log split into ranges (one record each, or several), with missing, unknown and failed questions and a run
    of blank lines making an empty range: the same numbers as the whole log in one process."""
    corpus, golden, lines = sample
    unknown = json.dumps({"question_id": "zz", "question": "not in the golden set", "retrieved": []})
    failed = json.loads(lines[5])
    failed.update(retrieved=[], error="timeout")
    body = lines[3:5] + [json.dumps(failed)] + lines[6:12] + [""] * 9000 + lines[12:] + [unknown]
    path = write_log(tmp_path / "log.jsonl", body)
    monkeypatch.setattr(distributed_logs, "LOG_PART_BYTES", part_bytes)
    assert any(not read_range(path, a, b).strip() for a, b in line_ranges(path, part_bytes))  # an empty range
    local = evaluate_log(golden, path, corpus, ks=(1, 3, 5))
    split = evaluate_log(golden, path, corpus, ks=(1, 3, 5), engine="dask")
    assert_same(local, split)
    assert len(local.pages) >= 3 and len(local.missing_questions) == 3 and local.failed_questions
    assert split.unknown_questions == ["zz"]
    assert split.settings["read"]["ranges"] == len(line_ranges(path, part_bytes))


def test_split_log_other_judge_levels_and_no_corpus(client, sample, tmp_path, monkeypatch):
    """Another headline judge and level, measures asked for, and a log judged without the documents."""
    corpus, golden, lines = sample
    path = write_log(tmp_path / "log.jsonl", lines)
    monkeypatch.setattr(distributed_logs, "LOG_PART_BYTES", 3000)
    kw = dict(ks=(2, 4), judge="page", level="document", measures=["ndcg@k"])
    assert_same(evaluate_log(golden, path, corpus, **kw), evaluate_log(golden, path, corpus, engine="dask", **kw))
    bare = load_golden(sample=True)
    assert_same(evaluate_log(bare, path), evaluate_log(bare, path, engine="dask"))


def test_judge_on_part_of_the_log(client, sample, tmp_path, monkeypatch):
    """Page numbers logged in the first records only: the page judge applies to the whole log in one process, so
    every range is judged by it, also those whose items have no pages."""
    corpus, golden, lines = sample
    out = []
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if i >= 5:
            for item in rec["retrieved"]:
                item.pop("page", None), item.pop("pages", None)
        out.append(json.dumps(rec))
    path = write_log(tmp_path / "log.jsonl", out)
    monkeypatch.setattr(distributed_logs, "LOG_PART_BYTES", 2000)
    local = evaluate_log(golden, path, corpus, judge="page")
    assert "page" in local.pages
    assert_same(local, evaluate_log(golden, path, corpus, judge="page", engine="dask"))


def test_errors_name_the_logs_own_line(client, sample, tmp_path, monkeypatch):
    """A bad record in a later range, or a question logged in two ranges: the error one process gives, with the
    file's own line number."""
    corpus, golden, lines = sample
    monkeypatch.setattr(distributed_logs, "LOG_PART_BYTES", 500)
    bad = write_log(tmp_path / "bad.jsonl", lines[:9] + ['{"question_id": "q1", "retrieved": [}'] + lines[9:])
    for engine in ("local", "dask"):
        with pytest.raises(InputError) as e:
            evaluate_log(golden, bad, corpus, engine=engine)
        assert e.value.line == 10 and e.value.path == bad and "malformed JSON" in e.value.message
    twice = write_log(tmp_path / "twice.jsonl", lines + [lines[2]])
    for engine in ("local", "dask"):
        with pytest.raises(InputError, match="logged twice") as e:
            evaluate_log(golden, twice, corpus, engine=engine)
        assert e.value.line == len(lines) + 1 and "line 3" in e.value.message
    empty = write_log(tmp_path / "empty.jsonl", ["", ""])
    with pytest.raises(InputError, match="file is empty"):
        evaluate_log(golden, empty, corpus, engine="dask")


def test_row_views_refused(client, sample, tmp_path):
    """The result keeps per-question values only: a view built from judged rows says so, naming engine='local'."""
    corpus, golden, lines = sample
    split = evaluate_log(golden, write_log(tmp_path / "log.jsonl", lines), corpus, engine="dask")
    assert split.summary().shape[0] >= 3 and "ExperimentResult" in repr(split)
    for view in (split.no_answer, split.placements, lambda: split.explain(golden.labelled.index[0])):
        with pytest.raises(InputError, match="engine='local'"):
            view()
