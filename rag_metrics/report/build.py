"""Experiment reports: run notebooks through papermill, export standalone HTML, keep an index.

Layout written under ``reports_dir`` (default ``reports/``)::

    reports/index.html                          every experiment and its runs, newest first
    reports/<experiment>/<UTC timestamp>/       one folder per run
        <notebook>.ipynb                        the executed notebook (kept even when it fails)
        <notebook>.html                         standalone HTML, figures embedded as base64
        run.json                                parameters, notebook status, failures
        summary.json                            headline figures the notebooks recorded

A notebook records a headline figure with :func:`record`; the index shows each
experiment's latest run with its headline figures and 95% intervals (Clopper-Pearson for 0/1 values, BCa
bootstrap otherwise), and the difference to the experiment's previous run -- the exact paired test with its
interval when both runs recorded per-question values for the same questions, "within noise" when p >= 0.05.

The HTML references nothing on the network: MathJax and require.js URLs are blanked and
figures are inline PNG.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rag_metrics.experiment.history import merge_history
from rag_metrics.core.errors import InputError, check_name
from rag_metrics.core.files import atomic_write_text
from rag_metrics.core.options import parse_key_values
from rag_metrics.report.reports_index import write_index
from rag_metrics.report.kernel import EXPERIMENT_KEY, HEADLINE_MIME, RECORD_ONLY, experiment_record, headlines
from rag_metrics.report.staging import PUBLISHED, STAGED_HISTORY, clean_stale_staging, copy_history, make_staging, publish

__all__ = ["ReportError", "build_report", "execute_notebook", "parse_parameters", "export_html", "REMOVE_INPUT"]


class ReportError(RuntimeError):
    """A notebook failed while the report was built; the message says which notebook, which cell and why.

    (Bad arguments -- an unknown parameter, a missing notebook, a bad experiment name -- are
    :class:`~rag_metrics.InputError` and are raised before anything runs or is written.)
    """


@dataclass
class NotebookRun:
    notebook: str
    status: str  # "ok" or "failed"
    executed: str
    html: str | None = None
    error: str | None = None


@dataclass
class RunRecord:
    experiment: str
    timestamp: str
    parameters: dict
    notebooks: list[NotebookRun] = field(default_factory=list)


def parse_parameters(items) -> dict:
    """``["k=5", "name=bm25", "ks=[1,3]"]`` -> ``{"k": 5, "name": "bm25", "ks": [1, 3]}`` (values typed as
    :func:`rag_metrics.core.options.parse_value` says: numbers, true/false, none, JSON lists and objects, else text)."""
    return parse_key_values(items, what="parameter")


def _declared_parameters(path: Path) -> dict:
    import papermill

    return papermill.inspect_notebook(str(path))


_SIBLING_LINK = re.compile(r"\]\(([\w-]+)\.ipynb(#[^)\s]*)?\)")
"""A Markdown link to a notebook of the same folder: ``](00_glossary.ipynb#MRR)``."""


REMOVE_INPUT = "remove-input"
"""The cell tag whose code the HTML page leaves out (its output stays): setup and import cells of the lessons."""


def export_html(notebook_path: Path, html_path: Path, *, hide_input: bool = False) -> None:
    """Write a standalone HTML file (no network references) for an executed notebook; ``hide_input`` leaves
    the code out (the experiment report is read, not studied)."""
    import nbformat
    from nbconvert import HTMLExporter

    from traitlets.config import Config

    # a cell tagged REMOVE_INPUT (a lesson's imports and setup) shows its output without its code
    config = Config({"TagRemovePreprocessor": {"remove_input_tags": {REMOVE_INPUT}}})
    exporter = HTMLExporter(config=config, template_name="lab", exclude_input=hide_input,
                            exclude_input_prompt=hide_input, exclude_output_prompt=hide_input)
    # No external references: these loaders are blanked (figures are inline PNG already).
    for trait in ("mathjax_url", "require_js_url", "mermaid_js_url", "mermaid_layout_elk_js_url"):
        setattr(exporter, trait, "")
    nb = nbformat.read(str(notebook_path), as_version=4)
    # a claim that showed nothing, or an experiment record, is for tests and the index; so are the headline figures
    # of a report read without its code (the experiment report shows them in its own tables)
    hidden = RECORD_ONLY | {HEADLINE_MIME} if hide_input else RECORD_ONLY
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if not (set(o.get("data") or {"-": 0}) - {"text/plain"} <= hidden
                                                            and set(o.get("data") or {}) & hidden)]
            for output in cell.outputs:  # a claim's sentence (Markdown output) may link the glossary too
                data = output.get("data") or {}
                if isinstance(data.get("text/markdown"), str):
                    data["text/markdown"] = _SIBLING_LINK.sub(r"](\1.html\2)", data["text/markdown"])
        else:  # links between notebooks (the glossary) point at their pages, exported beside this one
            cell.source = _SIBLING_LINK.sub(r"](\1.html\2)", cell.source)
    title = Path(notebook_path).stem
    for cell in nb.cells:  # the page's <title> is the notebook's first heading
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("# "):
            title = cell.source.lstrip()[2:].split("\n", 1)[0].strip()
            break
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    html_path.write_text(body, encoding="utf-8")


def _timestamp(now=None) -> str:
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%SZ")


def _check_notebooks(paths: list[Path], parameters: dict, chosen: bool) -> None:
    for path in paths:
        if not path.is_file():
            raise InputError(f"notebook {path} not found.")
        declared = _declared_parameters(path)
        unknown = sorted(set(parameters) - set(declared))
        if unknown:
            hint = "" if chosen else " Run only the notebooks that declare it with --notebook PATH."
            raise InputError(f"{path}: parameter(s) {unknown} not declared in its 'parameters' cell "
                             f"(declared: {sorted(declared)}).{hint}")


def _kernel_manager_writing_to(log):
    """nbclient's kernel manager with the kernel process's own stdout and stderr sent to ``log`` (an open file).

    A kernel writes there only about itself -- cell output reaches the notebook through its messages -- and
    ipykernel logs harmless tracebacks there when it is shut down while flushing (``ZMQError: Socket operation
    on non-socket``, seen on busy machines). Inherited, they would land on the command's stderr after a report
    that succeeded; kept in ``log``, they are shown only when the kernel fails (:func:`execute_notebook`).
    """
    from jupyter_client.manager import AsyncKernelManager

    class _KernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):
            kw.setdefault("stdout", log)
            kw.setdefault("stderr", log)
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    return _KernelManager


def _tail(log, lines: int = 40) -> str:
    log.flush()
    log.seek(0)
    return "".join(log.read().decode("utf-8", "replace").splitlines(keepends=True)[-lines:])


def execute_notebook(path, output, parameters: dict | None = None, *, progress=False, attempts: int = 3):
    """Run a notebook through papermill in its own folder with a ``python3`` kernel, quietly.

    Safe from threads: the kernel is started in the notebook's folder (nbclient's ``resources`` path, the
    kernel process's own working directory) and both paths are made absolute, so nothing changes the
    working directory of this process. (papermill's own ``cwd=`` moves the whole process's working directory:
    two notebooks run from two threads would move each other's relative paths.)

    The kernel process's own output (not the cells': they are in the notebook) goes to a temporary file; it is
    written to this process's stderr only when the run fails in a way the notebook does not show (a kernel that
    dies, a timeout), and dropped otherwise.

    A kernel that dies while starting (it happens when several start at once) is started again, up
    to ``attempts`` times; an error in a cell is raised at once (``PapermillExecutionError``).
    """
    import sys

    import papermill
    from papermill.exceptions import PapermillExecutionError

    path, output = Path(path).resolve(), Path(output).resolve()
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryFile() as log:
            try:
                return papermill.execute_notebook(str(path), str(output), parameters=parameters or {},
                                                  kernel_name="python3", progress_bar=progress,
                                                  resources={"metadata": {"path": str(path.parent)}},
                                                  kernel_manager_class=_kernel_manager_writing_to(log),
                                                  extra_arguments=["--IPKernelApp.log_level=ERROR"])
            except PapermillExecutionError:
                raise
            except Exception as e:
                if isinstance(e, RuntimeError) and "before replying to kernel_info" in str(e) and attempt < attempts:
                    continue
                told = _tail(log)
                if told:
                    print(f"{path.name}: the kernel wrote:\n{told}", file=sys.stderr, end="" if told.endswith("\n") else "\n")
                raise


def _run_one(path: Path, staging: Path, parameters: dict, hide_input: bool, progress) -> tuple[NotebookRun, dict, dict | None]:
    """Execute one notebook into the staging folder and export its page; a failing cell is recorded, not raised."""
    from papermill.exceptions import PapermillExecutionError

    executed = staging / path.name
    item = NotebookRun(path.name, "ok", executed.name)
    try:
        execute_notebook(path, executed, parameters, progress=progress)
    except PapermillExecutionError as e:
        item.status = "failed"
        item.error = f"cell {e.cell_index} (execution count {e.exec_count}): {e.ename}: {e.evalue}"
    found, experiment = {}, None
    if executed.exists():
        html_path = executed.with_suffix(".html")
        export_html(executed, html_path, hide_input=hide_input)
        item.html = html_path.name
        found = headlines(executed)
        experiment = experiment_record(executed)
    return item, found, experiment


def build_report(experiment: str = "default", parameters: dict | None = None, notebooks=None, *,
                 notebooks_dir="notebooks", reports_dir="reports", now=None, progress_bar: bool = True,
                 hide_input: bool = False, jobs: int | None = None, history_dir=None,
                 folder_parameter: str | None = None) -> Path:
    """Execute ``notebooks`` (default: every ``notebooks_dir/*.ipynb``) with ``parameters``.

    Returns the run folder ``reports_dir/experiment/<UTC timestamp>``. Bad arguments (experiment
    name, undeclared parameter, missing notebook) raise :class:`~rag_metrics.InputError` before
    anything runs or is written. Notebooks run ``jobs`` at a time (default: one per CPU core, at most
    the number of notebooks), each in its own kernel; with ``progress_bar`` one line per notebook says
    ``[i/n] name: ok (seconds)``. The run is assembled in a hidden staging folder and appears under its
    timestamp only when complete, so concurrent runs and the index never see half a run; staging folders
    of builds whose process is gone are removed first (:func:`clean_stale_staging`). Folders and files
    get the modes the user's umask gives. A failing notebook raises :class:`ReportError` after the others
    ran (its partial executed notebook and HTML are kept, and the run is listed as failed).

    ``history_dir``: a run history the notebooks add to (parameter ``history_dir``). They write to a copy
    inside the staging folder; the runs they saved join ``history_dir`` only once the report is published
    and only when no notebook failed (:func:`rag_metrics.experiment.history.merge_history`), so a killed or
    failed build leaves the history as it was.

    ``folder_parameter``: the name of a parameter the notebooks declare, set to the folder their pages are
    written to (the staging folder): a file a notebook writes there is published beside its page (the
    experiment report's whole question table).
    """
    parameters = dict(parameters or {})
    check_name(experiment, what="experiment name")
    paths = _notebook_paths(notebooks, notebooks_dir, {**parameters, **({folder_parameter: None}
                                                                       if folder_parameter else {})})
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths)))
    root = Path(reports_dir).resolve()
    stamp = _timestamp(now)
    folder = root / experiment
    folder.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(folder)
    staging = make_staging(folder, stamp)
    run_record = RunRecord(experiment, stamp, dict(parameters))
    if folder_parameter:
        parameters[folder_parameter] = str(staging)
    history = _stage_history(history_dir, staging, parameters, run_record)
    try:
        done = _run_notebooks(paths, staging, parameters, hide_input, progress_bar, jobs)
        summary, failures = _record_runs(done, run_record)
        run_dir = _write_run(staging, folder, stamp, summary, run_record)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if history is not None:
            shutil.rmtree(history[1], ignore_errors=True)
        raise
    _merge_published(root, history, failures)
    if failures:
        raise ReportError("notebook(s) failed; partial executed notebooks kept in "
                          f"{run_dir}:\n  " + "\n  ".join(failures))
    return run_dir


def _stage_history(history_dir, staging: Path, parameters: dict, run_record: RunRecord) -> tuple | None:
    """The staging copy of ``history_dir`` beside ``staging`` (:func:`copy_history`), given to the notebooks as
    their ``history_dir`` (``parameters`` changed in place; ``run_record`` keeps the real one): ``(history_dir,
    staged copy, names copied)``, or None without a history."""
    if history_dir is None:
        return None
    history_dir = Path(history_dir).resolve()
    staged = staging.with_name(staging.name.removesuffix(".partial") + STAGED_HISTORY)
    try:
        copied = copy_history(history_dir, staged)
    except BaseException:  # nothing ran yet: neither folder is kept
        for path in (staging, staged):
            shutil.rmtree(path, ignore_errors=True)
        raise
    parameters["history_dir"] = str(staged)
    run_record.parameters["history_dir"] = str(history_dir)
    return history_dir, staged, copied


def _merge_published(root: Path, history: tuple | None, failures: list) -> None:
    """After publishing: mark the staged history published, list the run in the index, then merge the runs the
    notebooks saved into the history -- only when no notebook failed -- and remove the staged copy."""
    if history is not None and not failures:  # published: its runs join the history (a failed report's do not)
        history_dir, staged, copied = history
        atomic_write_text(staged / PUBLISHED, json.dumps({"history_dir": str(history_dir), "skip": copied}))
    write_index(root)  # the run is listed before its history is merged: a kill in between loses neither
    if history is not None:
        history_dir, staged, copied = history
        if not failures:
            merge_history(staged, history_dir, skip=copied)
        shutil.rmtree(staged, ignore_errors=True)


def _notebook_paths(notebooks, notebooks_dir, parameters: dict) -> list[Path]:
    """The notebooks to run, absolute (they run from threads): ``notebooks`` as given, else every
    ``notebooks_dir/*.ipynb`` in name order. Refuses none, a missing one, and a parameter one of them does not
    declare (:func:`_check_notebooks`)."""
    notebooks_dir = Path(notebooks_dir).resolve()
    paths = [Path(p).resolve() for p in notebooks] if notebooks else sorted(notebooks_dir.glob("*.ipynb"))
    if not paths:
        raise InputError(f"no notebook to run in {notebooks_dir}/.")
    _check_notebooks(paths, parameters, chosen=bool(notebooks))
    return paths


def _close_thread_event_loop() -> None:
    """Close the event loop papermill's client made for this worker thread (jupyter_core's ``run_sync`` makes one per
    thread and never closes it: its two sockets stay open until garbage collection, which then warns). The next run
    in this thread gets a new loop. Only the calling thread's loop is touched, and only a pool thread calls this
    (outside the main thread ``get_event_loop`` never makes a loop: it returns the thread's or raises); no warning
    filter is changed, as that would change it for every thread."""
    import asyncio

    try:
        loop = asyncio.get_event_loop()
    except RuntimeError:  # no loop was set in this thread
        return
    if not loop.is_running() and not loop.is_closed():
        loop.close()
    asyncio.set_event_loop(None)


def _run_notebooks(paths: list[Path], staging: Path, parameters: dict, hide_input: bool, progress_bar: bool,
                   jobs: int) -> list:
    """``[(path, NotebookRun, headlines, experiment record)]`` in notebook order: each notebook run into
    ``staging`` (:func:`_run_one`), ``jobs`` at a time. Progress: papermill's bar when one at a time, else one line
    per notebook when it ends (``[i/n] name: ok (seconds)``)."""
    import sys
    import time
    from concurrent.futures import ThreadPoolExecutor

    def task(numbered):
        i, path = numbered
        start = time.perf_counter()
        bar = {"desc": f"[{i}/{len(paths)}] {path.stem}", "file": sys.stderr} if progress_bar and jobs == 1 else False
        try:
            item, found, record = _run_one(path, staging, parameters, hide_input, bar)
        finally:
            _close_thread_event_loop()
        if progress_bar and jobs > 1:
            status = "ok" if item.status == "ok" else f"FAILED: {item.error}"
            print(f"[{i}/{len(paths)}] {path.stem}: {status} ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)
        return path, item, found, record

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(task, enumerate(paths, start=1)))


def _record_runs(done: list, run_record: RunRecord) -> tuple[dict, list[str]]:
    """``(summary, failures)`` from the notebooks run (:func:`_run_notebooks`), each also added to ``run_record``:
    the headline figures per notebook stem (and under :data:`EXPERIMENT_KEY` an experiment report's newest run,
    verdict and trend, read by the index; the last notebook's wins), and ``path: error`` of each that failed."""
    summary: dict = {}
    failures = []
    for path, item, found, record in done:
        run_record.notebooks.append(item)
        if found:
            summary[path.stem] = found
        if record:
            summary[EXPERIMENT_KEY] = record
        if item.status != "ok":
            failures.append(f"{path}: {item.error}")
    return summary, failures


def _write_run(staging: Path, folder: Path, stamp: str, summary: dict, run_record: RunRecord) -> Path:
    """Write ``summary.json`` and ``run.json`` into ``staging`` and publish it under ``folder`` (:func:`publish`);
    when the timestamp was taken, ``run.json`` records the folder's own name. Returns the run folder."""
    (staging / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    (staging / "run.json").write_text(json.dumps(asdict(run_record), indent=2, default=str), encoding="utf-8")
    run_dir = publish(staging, folder, stamp)
    if run_dir.name != stamp:
        run_record.timestamp = run_dir.name
        atomic_write_text(run_dir / "run.json", json.dumps(asdict(run_record), indent=2, default=str))
    return run_dir


