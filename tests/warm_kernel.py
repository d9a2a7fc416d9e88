"""One warm ``python3`` kernel per test process, reused across the notebook sweep.

The sweep (``test_every_notebook_runs_and_says_nothing_false``) runs each notebook under ~70 parameter sets. Starting a
kernel and importing pandas, matplotlib and the package took about 2 of the ~4.5 seconds of each run; here one
kernel serves every run of a test process. Before each run the kernel's namespace is emptied (``%reset -f``), its
figures closed and its working directory set to the notebook's folder, so a run sees what a fresh kernel would --
except that imported modules stay imported. No notebook sets a matplotlib rcParam or a pandas option and the package
keeps no cache, so nothing else carries over; ``test_a_warm_kernel_shows_what_a_fresh_one_shows`` checks that a run
after two other notebooks equals a fresh papermill run, output for output.

What a fresh kernel per notebook proves is proved elsewhere: nbval re-runs every committed notebook in its own
kernel, ``test_regenerating_gives_byte_identical_notebooks`` re-executes them through papermill, and the report
tests run ``experiment.ipynb`` the way ``rag-metrics report`` does.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

_RESET = """\
import os as _os, matplotlib.pyplot as _plt
_plt.close("all")
_os.chdir({folder!r})
get_ipython().run_line_magic("reset", "-f")
"""


class WarmKernel:
    """Execute notebooks with papermill's parameter injection in one kernel that outlives each run."""

    def __init__(self, timeout: int = 600):
        self.timeout = timeout
        self._client: NotebookClient | None = None

    def _run(self, nb, folder: Path) -> None:
        if self._client is None:
            self._client = NotebookClient(nb, kernel_name="python3", timeout=self.timeout,
                                          resources={"metadata": {"path": str(folder)}},
                                          extra_arguments=["--IPKernelApp.log_level=ERROR"])
        self._client.nb = nb
        self._client.execute(cleanup_kc=False)

    def execute(self, path, output, parameters: dict | None = None) -> None:
        """Run ``path`` with ``parameters`` injected as papermill injects them and write the result to ``output``.

        A cell that fails raises ``nbclient.exceptions.CellExecutionError`` (the output is not written); a kernel
        that dies is replaced at the next call."""
        path = Path(path).resolve()
        reset = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_RESET.format(folder=str(path.parent)))])
        reset.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
        nb = load_notebook_node(str(path))
        if parameters:
            nb = parameterize_notebook(nb, parameters)
        try:
            self._run(reset, path.parent)
            self._run(nb, path.parent)
        except DeadKernelError:
            self.close()
            raise
        nbformat.write(nb, str(output))

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client._cleanup_kernel()
            finally:
                self._client = None
