"""`rag-metrics report` on inputs the last reliability pass found: two logs with identical content, and a history
holding a broken record -- each said in one line on the terminal, not as a Python warning with its source."""

import shutil

from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir

DATA = data_dir()


def test_identical_logs_are_named_and_history_warnings_are_one_line(tmp_path, capsys, warm_kernels):
    log = DATA / "examples" / "bm25_c300o50.jsonl"
    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(log, copy)
    history = tmp_path / "reports" / "exp" / "history"
    history.mkdir(parents=True)
    (history / "20260101T000000Z-broken.json").write_text('{"id": "broken', encoding="utf-8")
    code = main(["report", "--experiment", "exp", "--reports-dir", str(tmp_path / "reports"), "--golden",
                 str(DATA / "golden.jsonl"), "--run", str(log), "--run", str(copy)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"rag-metrics report: {log} and {copy} hold identical retrieved items (one run logged 2 times)" in err \
        or f"rag-metrics report: {copy} and {log} hold identical retrieved items (one run logged 2 times)" in err
    warned = [line for line in err.splitlines() if "20260101T000000Z-broken.json" in line]
    assert warned and all(line.startswith("rag-metrics report: warning: skipped ") for line in warned), err
    assert "HistoryWarning" not in err and "warnings.warn" not in err


def test_a_report_killed_between_publishing_and_merging_is_listed_clean_and_recovered(tmp_path, monkeypatch,
                                                                                    warm_kernels):
    import subprocess
    import sys

    from test_files import SAVE_CELL, _notebook

    from rag_metrics.report import build as runner

    history = tmp_path / "reports" / "x" / "history"
    good = _notebook(tmp_path / "good.ipynb", SAVE_CELL)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed between publishing and merging the history")
    monkeypatch.setattr(runner, "merge_history", killed)
    with __import__("pytest").raises(KeyboardInterrupt):
        runner.build_report("x", {"history_dir": str(history)}, [good], reports_dir=tmp_path / "reports",
                            progress_bar=False, history_dir=history)
    monkeypatch.undo()
    (run_dir,) = [p for p in (tmp_path / "reports" / "x").iterdir() if p.name[0].isdigit()]
    assert not (run_dir / ".history").exists()  # the published run holds no staging copy
    assert run_dir.name in (tmp_path / "reports" / "index.html").read_text(encoding="utf-8")  # listed already
    assert not list(history.glob("*.json"))
    # the killed build's process is gone: the next build merges what it staged, once
    (left,) = (tmp_path / "reports" / "x").glob(".*.history")
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    parts = left.name.rsplit("-", 2)
    left.rename(left.with_name(f"{parts[0]}-{dead}-{parts[2]}"))
    runner.clean_stale_staging(tmp_path / "reports" / "x")
    assert [p.name for p in history.glob("*.json")] == ["9_run.json"]
    assert not list((tmp_path / "reports" / "x").glob(".*.history"))


def test_a_notebook_report_refuses_the_first_experiment_option_given_and_only_those():
    import pytest

    from rag_metrics import InputError
    from rag_metrics.report.experiment_build import EXPERIMENT_ONLY, check_notebook_options

    nothing = {name: None for name in EXPERIMENT_ONLY}
    check_notebook_options({**nothing, "experiment": "x", "parameter": ["k=5"], "jobs": 2})  # notebook options pass
    check_notebook_options({})
    for name in ("golden", "pages", "answers", "generator", "page_base", "judge", "measure"):  # the last included
        with pytest.raises(InputError, match=rf"^--{name.replace('_', '-')} belongs to an experiment report"):
            check_notebook_options({**nothing, name: 0})  # a falsy value is given too (page base 0)
    with pytest.raises(InputError, match="^--golden belongs"):
        check_notebook_options({**nothing, "measure": "mrr", "golden": "g.jsonl"})


def test_the_logs_fingerprint_is_digested_once_and_travels_with_the_log(monkeypatch):
    """The report's reading child digests each log (duplicate logs); the notebook's evaluation records the same digest:
    kept with the run table, pickled with the log, it is not digested again -- and a new run table is."""
    import pickle

    from rag_metrics.io import logs as logs_module
    from rag_metrics.io.logs import load_log

    log = load_log(DATA / "examples" / "bm25_c300o50.jsonl")
    first = log.fingerprint()
    calls = []
    monkeypatch.setattr(logs_module, "digest", lambda value: calls.append(1) or "recomputed")
    assert pickle.loads(pickle.dumps(log)).fingerprint() == log.fingerprint() == first and not calls
    changed = logs_module.RunLog(log.run.head(3), log.questions, log.source)
    assert changed.fingerprint() == "recomputed" and calls == [1]
