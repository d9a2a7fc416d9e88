"""Reports built concurrently on a busy machine, as a user runs them: relative paths, from the project's folder.

Notebooks run in threads of one process; nothing the runner does may change process-wide state (the working
directory above all), or one notebook's paths move under another's feet. Every test here spins ``cpu_count - 1``
processes while a build runs its notebooks two at a time, so the build's threads compete for the CPUs (one build per
case: the four notebooks of one build already run concurrently).
"""

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("papermill")

BIN = Path(sys.executable).parent


def _spin(stop):  # pragma: no cover - runs in a child process
    while not stop.is_set():
        pass


@pytest.fixture
def busy_cpus():
    """``cpu_count - 1`` busy-looping processes (at least one) for the duration of the test: with the build's two
    notebook jobs, more work than cores."""
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    procs = [ctx.Process(target=_spin, args=(stop,), daemon=True) for _ in range(max((os.cpu_count() or 2) - 1, 1))]
    for p in procs:
        p.start()
    yield len(procs)
    stop.set()
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()


def _notebook(path: Path, body: str):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("k = 3")
    p.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {path.stem}"), p, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, str(path))


@pytest.fixture
def project(tmp_path):
    """A project folder with four small notebooks that read a file next to them (relative to their folder)."""
    notebooks = tmp_path / "proj" / "notebooks"
    notebooks.mkdir(parents=True)
    (notebooks / "numbers.txt").write_text("1 2 3\n")
    for i in range(4):
        _notebook(notebooks / f"{i:02d}_nb.ipynb",
                  "import time\ntime.sleep(0.3)\nprint(sum(map(int, open('numbers.txt').read().split())) * k)")
    return tmp_path / "proj"


def _report(cwd: Path, *args):
    return subprocess.run([str(BIN / "rag-metrics"), "report", "--experiment", "busy", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def _check_builds(reports: Path, builds: int):
    runs = sorted(p for p in (reports / "busy").iterdir() if not p.name.startswith(".") and p.name != "history")
    assert len(runs) == builds
    for run in runs:
        record = json.loads((run / "run.json").read_text())
        assert [n["status"] for n in record["notebooks"]] == ["ok"] * 4
        for i in range(4):
            assert (run / f"{i:02d}_nb.html").is_file()
            executed = nbformat.read(str(run / f"{i:02d}_nb.ipynb"), as_version=4)
            assert "36" in executed.cells[-1].outputs[0]["text"]
    index = (reports / "index.html").read_text()
    for run in runs:
        assert f"busy/{run.name}/00_nb.html" in index
    assert not [p for p in (reports / "busy").iterdir() if p.name.endswith(".partial")]


def test_report_from_the_command_line_with_relative_paths_on_busy_cpus(project, busy_cpus):
    """Four notebooks, two at a time, relative paths: the build succeeds and the index lists it."""
    done = _report(project, "-p", "k=6", "--jobs", "2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    _check_builds(project / "reports", 1)


def test_report_from_another_working_directory(project, busy_cpus, tmp_path):
    """The same build started from elsewhere, with paths relative to that folder."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _report(elsewhere, "-p", "k=6", "--jobs", "2", "--notebooks-dir", "../proj/notebooks",
                   "--reports-dir", "../proj/reports")
    assert done.returncode == 0, done.stderr[-3000:]
    _check_builds(project / "reports", 1)
    assert os.getcwd() != str(project / "notebooks")
