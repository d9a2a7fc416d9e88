"""Warm ``python3`` kernels for the tests whose subject is not a kernel's start-up.

Starting a kernel and importing pandas, matplotlib and the package took about 2 of the ~4.5 seconds of a notebook
run. A :class:`KernelPool` keeps kernels alive between runs, one per thread that runs a notebook at a time, and runs
each notebook through papermill itself (``papermill.execute_notebook(..., km=<a warm kernel manager>)``), so
parameter injection, the executed file, a failing cell's ``PapermillExecutionError`` and its partial output are
papermill's own. Under :meth:`KernelPool.serving`, every ``papermill.execute_notebook`` of this process -- the
package's ``rag_metrics.report.build.execute_notebook``, hence ``build_report``, ``build_experiment_report`` and
``rag-metrics report`` called in-process -- takes a warm kernel instead of starting one; nothing in the package
changes.

Before each run the kernel is put back to what a fresh kernel shows: its namespace emptied and its execution count
back to 1 (``InteractiveShell.reset(new_session=True)``, sent without storing history), its figures closed, its
working directory set to the notebook's folder, the warning filters and onces, and matplotlib's rcParams, as they
were after the kernel's start. Imported modules stay imported; no notebook sets a pandas option and the package keeps
no cache. ``tests/test_notebooks.py::test_a_warm_kernel_shows_what_a_fresh_one_shows`` checks that a run after two
other notebooks equals a fresh papermill run, output for output (the execution counts matched too, checked by hand).

A kernel that dies, times out or fails in any way but a cell's error is shut down, not reused.

Fresh kernels stay where a kernel's life is the subject: the lifecycle and its errors (tests/test_runner.py's dying
kernel, tests/test_report.py's kernel output and event-loop tests), concurrent builds (tests/test_concurrency.py,
test_concurrent_reports_all_reach_the_index), the README's commands run as subprocesses (tests/test_readme.py),
nbval, `make notebooks` (test_regenerating_gives_byte_identical_notebooks) and the Makefile's reports.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient

EXTRA_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]  # as rag_metrics.report.build.execute_notebook starts kernels

# Run once per reset, without storing history: the first run saves the fresh kernel's warning filters and rcParams
# in a module of their own (which a namespace reset does not clear); every later run restores them.
_RESET = """\
import os, sys, types, warnings
import matplotlib, matplotlib.pyplot
_state = sys.modules.get("_warm_kernel_state")
if _state is None:
    _state = sys.modules["_warm_kernel_state"] = types.ModuleType("_warm_kernel_state")
    _state.filters = list(warnings.filters)
    _state.rc = matplotlib.rcParams.copy()
matplotlib.pyplot.close("all")
warnings.filters[:] = _state.filters
warnings.onceregistry.clear()
warnings._filters_mutated()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    matplotlib.rcParams.update(_state.rc)
os.chdir({folder!r})
get_ipython().reset(new_session=True)
"""


class _PoolKernelManager(AsyncKernelManager):
    """A kernel manager that remembers the clients made on it (papermill leaves a borrowed kernel's client open)
    and sends the kernel process's own output to a file of its own, as the package's runner does."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.made_clients: list = []
        self.log_file = tempfile.TemporaryFile()

    def client(self, **kw):
        kc = super().client(**kw)
        self.made_clients.append(kc)
        return kc

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw.setdefault("stdout", self.log_file)
        kw.setdefault("stderr", self.log_file)
        return await super()._async_launch_kernel(kernel_cmd, **kw)

    def close_clients(self) -> None:
        for kc in self.made_clients:
            kc.stop_channels()
        self.made_clients.clear()


async def _reset(km: _PoolKernelManager, folder: str, timeout: int) -> None:
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=timeout)
        reply = await kc.execute_interactive(_RESET.format(folder=folder), store_history=False, timeout=timeout,
                                             output_hook=lambda msg: None)
    finally:
        km.close_clients()
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"resetting a warm kernel failed: {reply['content'].get('evalue')}")


class KernelPool:
    """Live ``python3`` kernels lent to one notebook run at a time (one per concurrent run, started on demand)."""

    def __init__(self, timeout: int = 600):
        self.timeout = timeout
        self._idle: list[_PoolKernelManager] = []
        self._all: list[_PoolKernelManager] = []
        self._lock = threading.Lock()
        self.started = 0  # kernels started, for the tests of the pool itself

    def _start(self, folder: Path) -> _PoolKernelManager:
        nb = nbformat.v4.new_notebook()
        client = NotebookClient(nb, kernel_name="python3", timeout=self.timeout,
                                kernel_manager_class=_PoolKernelManager, resources={"metadata": {"path": str(folder)}},
                                extra_arguments=list(EXTRA_ARGUMENTS))
        client.execute(cleanup_kc=False)  # starts the kernel, runs nothing
        km = client.km
        km.close_clients()
        with self._lock:
            self._all.append(km)
            self.started += 1
        return km

    def _borrow(self, folder: Path) -> _PoolKernelManager:
        with self._lock:
            km = self._idle.pop() if self._idle else None
        if km is None or not run_sync(km.is_alive)():
            if km is not None:
                self._discard(km)
            km = self._start(folder)
        run_sync(_reset)(km, str(folder), self.timeout)
        return km

    def _discard(self, km: _PoolKernelManager) -> None:
        with self._lock:
            if km in self._all:
                self._all.remove(km)
        km.close_clients()
        with contextlib.suppress(Exception):
            run_sync(km.shutdown_kernel)(now=True)
        km.log_file.close()

    def execute(self, input_path, output_path, parameters=None, **kwargs):
        """``papermill.execute_notebook`` on a warm kernel: the same arguments, result and errors."""
        from papermill.exceptions import PapermillExecutionError

        import papermill.execute

        kwargs.pop("kernel_manager_class", None)  # the borrowed kernel is already started
        kwargs.pop("km", None)
        km = self._borrow(Path(input_path).resolve().parent)
        try:
            result = papermill.execute.execute_notebook(input_path, output_path, parameters=parameters, km=km,
                                                        **kwargs)
        except PapermillExecutionError:
            km.close_clients()
            with self._lock:
                self._idle.append(km)
            raise
        except BaseException:
            self._discard(km)
            raise
        km.close_clients()
        with self._lock:
            self._idle.append(km)
        return result

    @contextlib.contextmanager
    def serving(self):
        """Within: every ``papermill.execute_notebook`` call of this process runs on a warm kernel of the pool."""
        import papermill

        with _patch(papermill, "execute_notebook", self.execute):
            yield self

    def close(self) -> None:
        for km in list(self._all):
            self._discard(km)
        self._idle.clear()


@contextlib.contextmanager
def _patch(owner, name, value):
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


class WarmKernel:
    """One notebook run at a time on a pool's warm kernel (the notebook sweep's interface)."""

    def __init__(self, timeout: int = 600, pool: KernelPool | None = None):
        self.pool = pool or KernelPool(timeout)
        self._own = pool is None

    def execute(self, path, output, parameters: dict | None = None) -> None:
        """Run ``path`` with ``parameters`` through papermill on a warm kernel and write the result to ``output``.
        A cell that fails raises ``PapermillExecutionError`` (papermill's partial output is written)."""
        self.pool.execute(str(Path(path).resolve()), str(output), parameters=parameters or {}, kernel_name="python3",
                          progress_bar=False, extra_arguments=list(EXTRA_ARGUMENTS))

    def close(self) -> None:
        if self._own:
            self.pool.close()
