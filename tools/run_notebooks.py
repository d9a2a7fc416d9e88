"""Re-execute notebooks in place, deterministically: ``make notebooks`` runs this.

    .venv/bin/python tools/run_notebooks.py notebooks/*.ipynb rag_metrics/report/experiment.ipynb

Each notebook runs top to bottom in a fresh ``python3`` kernel, in its own folder (as nbval and
papermill run it); then the stream outputs of each cell are merged (after execution: merging before it
would only touch the old outputs), no timing is recorded, the kernel's display name is set to what
JupyterLab writes ("Python 3 (ipykernel)"), and the file is written the way JupyterLab saves it. Run
twice, it gives byte-identical files; opened and saved in JupyterLab, git stays clean (a test checks both).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def normalize(nb):
    """The notebook as JupyterLab would save it: kernelspec display name, merged streams."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    merge = CoalesceStreamsPreprocessor()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            merge.preprocess_cell(cell, {}, i)
            cell.metadata.pop("execution", None)
    return nb


def run(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, kernel_name="python3", record_timing=False, timeout=600, startup_timeout=300,
                            resources={"metadata": {"path": str(path.parent.resolve())}},
                            extra_arguments=["--IPKernelApp.log_level=ERROR"])
    client.execute()
    nbformat.write(normalize(nb), str(path))


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"executing {name}", file=sys.stderr, flush=True)
        run(Path(name))
