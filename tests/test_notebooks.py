"""The notebooks as a reader meets them: every parameter moved, deterministic files, JupyterLab leaves git clean."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from notebook_parameters import NOTEBOOK_RUNS

papermill = pytest.importorskip("papermill")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + [ROOT / "rag_metrics/report/experiment.ipynb"]


def test_the_table_moves_every_parameter_of_every_notebook():
    assert {ROOT / name for name in NOTEBOOK_RUNS} == set(NOTEBOOKS)
    for name, runs in NOTEBOOK_RUNS.items():
        declared = papermill.inspect_notebook(str(ROOT / name))
        moved = {p for run in runs for p, value in run.items() if repr(value) != declared[p]["default"]}
        assert set(declared) <= moved, f"{name}: never moved {sorted(set(declared) - moved)}"


RUNS = [(name, i, params) for name, runs in NOTEBOOK_RUNS.items() for i, params in enumerate(runs)]


@pytest.mark.parametrize("name, i, params", RUNS, ids=[f"{Path(n).stem}-{i}" for n, i, _ in RUNS])
def test_every_notebook_runs_with_other_parameters(tmp_path, name, i, params):
    path = ROOT / name
    out = tmp_path / "out.ipynb"
    params = {k: v.replace("{tmp}", str(tmp_path)) if isinstance(v, str) else v for k, v in params.items()}
    from rag_metrics.report.runner import execute_notebook

    execute_notebook(path, out, params)
    nb = nbformat.read(str(out), as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    if "checks passed" in (path.read_text()):
        assert "checks passed" in text  # the checks cell ran to its end


def lab_save(text: str) -> str:
    """What JupyterLab writes back for a notebook it opened: its kernel's display name, JSON outputs through
    JavaScript (whose numbers have no integral floats), nbformat's own serialization."""
    nb = nbformat.reads(text, as_version=4)
    nb.metadata.setdefault("kernelspec", {})["display_name"] = "Python 3 (ipykernel)"
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for mime, data in (output.get("data") or {}).items():
                if mime.endswith("json"):
                    output["data"][mime] = json.loads(json.dumps(data), parse_float=lambda s: (
                        int(float(s)) if float(s).is_integer() else float(s)))
    return nbformat.writes(nb) + "\n"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_opening_and_saving_in_jupyterlab_leaves_git_clean(path):
    text = path.read_text(encoding="utf-8")
    assert lab_save(text) == text
    nb = nbformat.reads(text, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code if c.source), "committed with outputs, every cell run"
    assert any("parameters" in c.metadata.get("tags", []) for c in code)


@pytest.mark.parametrize("name", ["notebooks/02_chunking_grid.ipynb", "notebooks/05_retrieval_vs_generation.ipynb"])
def test_regenerating_gives_byte_identical_notebooks(tmp_path, name):
    """`make notebooks` (tools/run_notebooks.py) reproduces the committed file byte for byte."""
    copy = tmp_path / Path(name).name
    copy.write_bytes((ROOT / name).read_bytes())
    done = subprocess.run([sys.executable, str(ROOT / "tools/run_notebooks.py"), str(copy)], capture_output=True,
                          text=True, cwd=ROOT / Path(name).parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert copy.read_bytes() == (ROOT / name).read_bytes()
