"""Files that survive kills and concurrency: atomic writes, locks between processes, history saved once by
concurrent reports, broken history files skipped, staging folders of dead builds cleaned, umask-mode folders."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from rag_metrics.experiment.history import HistoryWarning, experiment_history, merge_history
from rag_metrics.core.errors import InputError
from rag_metrics.core.files import HOST, FileLock, LockHeld, check_output, process_alive
from rag_metrics.report.build import ReportError, build_report
from rag_metrics.report.staging import clean_stale_staging

REPO = Path(__file__).resolve().parents[1]


def python(code: str, *args, **kwargs):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, timeout=300, **kwargs)


# ---- atomic writes ----------------------------------------------------------------------------------------------

def test_a_write_killed_midway_leaves_the_previous_file(tmp_path):
    target = tmp_path / "history.json"
    target.write_text('{"previous": true}')
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, time
        from rag_metrics.core.files import atomic_open
        with atomic_open(sys.argv[1]) as f:
            f.write("{" + "x" * 100_000)
            f.flush()
            print("writing", flush=True)
            time.sleep(60)
            f.write("}")
    """), str(target)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert target.read_text() == '{"previous": true}'  # never half a file
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["history.json"]


def test_atomic_writes_follow_the_umask_and_keep_a_replaced_files_mode(tmp_path):
    result = python("""
        import os, stat, sys
        from pathlib import Path
        from rag_metrics.core.files import atomic_write_text
        os.umask(0o027)
        folder = Path(sys.argv[1])
        new = atomic_write_text(folder / "new.txt", "x")
        kept = folder / "kept.txt"
        kept.write_text("old")
        os.chmod(kept, 0o600)
        atomic_write_text(kept, "new")
        print(oct(stat.S_IMODE(new.stat().st_mode)), oct(stat.S_IMODE(kept.stat().st_mode)))
    """, tmp_path)
    assert result.stdout.split() == ["0o640", "0o600"], result.stderr


# ---- locks ------------------------------------------------------------------------------------------------------

def test_a_lock_names_its_holder_and_is_released(tmp_path):
    path = tmp_path / "x.lock"
    with FileLock(path, timeout=10):  # a bounded wait: a broken lock fails the test instead of hanging it
        assert path.read_text().split() == [str(os.getpid()), HOST]
        with pytest.raises(LockHeld) as held:
            FileLock(path, blocking=False).acquire()
        assert held.value.pid == os.getpid() and held.value.host == HOST
        with pytest.raises(LockHeld):
            FileLock(path, timeout=0.1).acquire()
    assert not path.exists()
    with FileLock(path, blocking=False):
        pass


def test_process_alive():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert process_alive(os.getpid()) and not process_alive(int(done.stdout)) and not process_alive(-1)
    assert not process_alive(0)  # kill(0, 0) would signal our own process group and say yes


_SAVE = """
import sys, warnings
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.experiment.history import save_experiment
from rag_metrics.io.corpus import data_dir
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log

golden = load_golden(data_dir() / "golden.jsonl")
result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), None)
with open(sys.argv[2], "a") as gate:  # ready: one mark each
    gate.write("x")
while len(open(sys.argv[2]).read()) < int(sys.argv[3]):  # all six ready: go together
    pass
path, status = save_experiment(result, sys.argv[1])
print(status)
"""


def test_concurrent_reports_save_a_run_once(tmp_path):
    """Six processes check and save the same run at once: one saves, five find it (the check and the save are
    under one lock); before, several saved it and a report compared the run with itself."""
    history, gate = tmp_path / "history", tmp_path / "gate"
    gate.write_text("")
    procs = [subprocess.Popen([sys.executable, "-c", _SAVE, str(history), str(gate), "6"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO) for _ in range(6)]
    outputs = [p.communicate(timeout=300) for p in procs]
    statuses = sorted(out.strip() for out, _ in outputs)
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    assert statuses.count("saved") == 1 and sum(s.startswith("already in the history") for s in statuses) == 5
    assert len(list(history.glob("*.json"))) == 1


def test_the_check_and_the_save_wait_for_the_history_lock(tmp_path, golden):
    """While another process holds the history folder's lock, save_experiment neither checks nor saves."""
    import threading

    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.experiment.history import LOCK_NAME, save_experiment
    from rag_metrics.io.corpus import data_dir
    from rag_metrics.io.logs import load_log

    result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), None)
    history = tmp_path / "history"
    history.mkdir()
    done = []
    with FileLock(history / LOCK_NAME, timeout=10):
        saver = threading.Thread(target=lambda: done.append(save_experiment(result, history)))
        saver.start()
        saver.join(1.0)
        assert saver.is_alive() and not list(history.glob("*.json"))  # waiting for the lock
    saver.join(30)
    assert done[0][1] == "saved" and len(list(history.glob("*.json"))) == 1


# ---- broken history files ---------------------------------------------------------------------------------------

def _record(name, stamp, fingerprint="f"):
    return {"id": f"{stamp}_{name}", "name": name, "timestamp": stamp, "summary": {}, "per_query": {},
            "fingerprint": {"golden": "g", "judge": "j"}, "config": {"log_fingerprint": fingerprint}}


def test_a_zero_byte_or_broken_history_file_is_named_and_skipped(tmp_path):
    (tmp_path / "20260101T000000000000Z_a.json").write_text(json.dumps(_record("a", "2026-01-01")))
    (tmp_path / "20260102T000000000000Z_killed.json").write_text("")
    (tmp_path / "20260103T000000000000Z_edited.json").write_text('{"id": 1}')
    with pytest.warns(HistoryWarning) as caught:
        records = experiment_history(tmp_path)
    assert [r["name"] for r in records] == ["a"]
    messages = " ".join(str(w.message) for w in caught)
    assert "20260102T000000000000Z_killed.json:1: malformed JSON" in messages
    assert "20260103T000000000000Z_edited.json: not a run record" in messages


def test_merge_history_adds_each_run_once(tmp_path):
    staged, history = tmp_path / "staged", tmp_path / "history"
    staged.mkdir()
    history.mkdir()
    (history / "1_old.json").write_text(json.dumps(_record("old", "1", "f-old")))
    (staged / "1_old.json").write_text(json.dumps(_record("old", "1", "f-old")))  # the copy the build started with
    (staged / "2_new.json").write_text(json.dumps(_record("new", "2", "f-new")))
    (staged / "3_again.json").write_text(json.dumps(_record("again", "3", "f-old")))  # a run already there
    added = merge_history(staged, history, skip={"1_old.json"})
    assert [p.name for p in added] == ["2_new.json"]
    assert sorted(p.name for p in history.glob("*.json")) == ["1_old.json", "2_new.json"]


# ---- report builds: history on publish only, staging cleaned, folder modes ---------------------------------------

def _notebook(path: Path, body: str) -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("history_dir = None")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


SAVE_CELL = textwrap.dedent("""
    import json, pathlib
    record = {"id": "9_run", "name": "run", "timestamp": "9", "summary": {}, "per_query": {},
              "fingerprint": {"golden": "g", "judge": "j"}, "config": {"log_fingerprint": "f"}}
    pathlib.Path(history_dir, "9_run.json").write_text(json.dumps(record))
""")


def test_a_report_adds_to_the_history_only_when_published_and_ok(tmp_path, warm_kernels):
    history = tmp_path / "reports" / "x" / "history"
    good = _notebook(tmp_path / "good.ipynb", SAVE_CELL)
    bad = _notebook(tmp_path / "bad.ipynb", SAVE_CELL + "\nraise RuntimeError('after saving')")
    with pytest.raises(ReportError):
        build_report("x", {"history_dir": str(history)}, [bad], reports_dir=tmp_path / "reports",
                     progress_bar=False, history_dir=history)
    assert not list(history.glob("*.json"))  # the failed report saved nothing
    run_dir = build_report("x", {"history_dir": str(history)}, [good], reports_dir=tmp_path / "reports",
                           progress_bar=False, history_dir=history)
    assert [p.name for p in history.glob("*.json")] == ["9_run.json"]
    assert not (run_dir / ".history").exists()
    assert json.loads((run_dir / "run.json").read_text())["parameters"]["history_dir"] == str(history.resolve())


def test_staging_folders_of_dead_builds_are_removed(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(done.stdout)
    from rag_metrics.report.staging import host_tag as _host_tag

    tag = _host_tag()
    names = {"dead": f".20260101T000000Z-{tag}-{dead}-0a1b2c3d.partial",
             "alive": f".20260101T000000Z-{tag}-{os.getpid()}-0a1b2c3e.partial",
             "elsewhere": f".20260101T000000Z-other_host-{dead}-0a1b2c3f.partial",
             "old legacy": ".20250101T000000Z-ab12cd.partial", "new legacy": ".20260101T000000Z-ef34gh.partial"}
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "experiment.ipynb").write_text("{}")
    old = time.time() - 3 * 24 * 3600
    os.utime(tmp_path / names["old legacy"], (old, old))
    removed = clean_stale_staging(tmp_path)
    assert sorted(p.name for p in removed) == sorted([names["dead"], names["old legacy"]])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [names["alive"], names["elsewhere"], names["new legacy"]])


def test_published_report_folders_follow_the_umask(tmp_path):
    nb = _notebook(tmp_path / "n.ipynb", "print('hello')")
    result = python("""
        import os, stat, sys
        from pathlib import Path
        os.umask(0o022)
        from rag_metrics.report.build import build_report
        run_dir = build_report("perm", {}, [Path(sys.argv[1])], reports_dir=sys.argv[2], progress_bar=False)
        print(oct(stat.S_IMODE(run_dir.stat().st_mode)))
        print(" ".join(sorted({oct(stat.S_IMODE(p.stat().st_mode)) for p in run_dir.iterdir()})))
    """, nb, tmp_path / "reports")
    lines = result.stdout.split("\n")
    assert lines[0] == "0o755", result.stderr  # not 0700 from mkdtemp: teammates and web servers can read it
    assert lines[1] == "0o644"


def test_write_json_writes_what_it_reads_back(tmp_path):
    from rag_metrics.core.files import write_json

    data = {"name": "日本語 \u2028 \"q\"", "values": [1, 0.5, None], "nested": {"a": [True]}}
    path = write_json(tmp_path / "sub" / "out.json", data)
    assert path == tmp_path / "sub" / "out.json" and json.loads(path.read_text(encoding="utf-8")) == data
    assert "日本語" in path.read_text(encoding="utf-8") and path.read_text(encoding="utf-8").endswith("}\n")


def test_an_output_path_under_a_file_is_refused_at_any_depth_and_nothing_is_created(tmp_path):
    """``check_output`` walks up to the first existing parent: a file there (directly above, or two folders up)
    refuses the path; a folder there, or parents still to be made, take it. Nothing is created either way."""
    (tmp_path / "notes.txt").write_text("x")
    for path in (tmp_path / "notes.txt" / "out.csv", tmp_path / "notes.txt" / "a" / "b" / "out.csv"):
        with pytest.raises(InputError, match="notes.txt is a file, so nothing can be written under it"):
            check_output(path)
        with pytest.raises(InputError, match="is a file, so nothing"):
            check_output(path, folder=True)
    assert check_output(tmp_path / "new" / "deeper" / "out.csv") == tmp_path / "new" / "deeper" / "out.csv"
    with pytest.raises(InputError, match="-o: is a folder; expected a file"):
        check_output(tmp_path)
    with pytest.raises(InputError, match="--reports-dir: is a file; expected a folder"):
        check_output(tmp_path / "notes.txt", folder=True, option="--reports-dir")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
