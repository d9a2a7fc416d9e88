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
import secrets
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rag_metrics.experiment.history import merge_history
from rag_metrics.core.errors import InputError, check_alpha, check_choice, check_name
from rag_metrics.core.files import HOST, atomic_write_text, process_alive
from rag_metrics.core.options import parse_key_values
from rag_metrics.report.index import write_index
from rag_metrics.report.kernel import EXPERIMENT_KEY, HEADLINE_MIME, RECORD_ONLY, experiment_record, headlines

__all__ = ["ReportError", "build_report", "execute_notebook", "build_experiment_report", "parse_parameters", "export_html",
           "EXPERIMENT_NOTEBOOK", "check_experiment_inputs", "clean_stale_staging", "EXPERIMENT_ONLY",
           "check_notebook_options", "REMOVE_INPUT"]

EXPERIMENT_ONLY = ("golden", "pages", "answers", "generator", "page_base", "judge", "measure")
"""Options of `rag-metrics report` that mean an experiment report (with ``--run``), never the notebooks."""


def check_notebook_options(given: dict) -> None:
    """Refuse, naming the first, an option of :data:`EXPERIMENT_ONLY` given (not None) to a notebook report."""
    for name in EXPERIMENT_ONLY:
        if given.get(name) is not None:
            raise InputError(f"--{name.replace('_', '-')} belongs to an experiment report: give the logs with --run "
                             "LOG.")


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


_STAGING = re.compile(r"\.(?P<stamp>[0-9]{8}T[0-9]{6}Z)-(?P<host>.+)-(?P<pid>[0-9]+)-(?P<token>[0-9a-f]{8})\.partial")
_LEGACY_STAGING = re.compile(r"\.[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9_]+\.partial")
LEGACY_STAGING_AGE_S = 24 * 3600
"""A staging folder without its builder's process ID (written by an older version) is removed after a day."""


def _host_tag() -> str:
    return re.sub(r"[^A-Za-z0-9._]", "_", HOST) or "host"


def _make_staging(folder: Path, stamp: str) -> Path:
    """A new hidden staging folder named after this process (``.<stamp>-<host>-<pid>-<token>.partial``), created
    with ``os.mkdir`` so that its mode follows the user's umask like any folder the user makes (``mkdtemp`` makes
    0700, which teammates and web servers cannot read once it is published)."""
    while True:
        staging = folder / f".{stamp}-{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}.partial"
        try:
            os.mkdir(staging)
            return staging
        except FileExistsError:  # pragma: no cover - a 32-bit token collision
            continue


def clean_stale_staging(folder) -> list[Path]:
    """Remove the staging folders of report builds whose process is gone (killed, crashed): those named after a
    process of this machine that no longer runs, and unnamed ones older than :data:`LEGACY_STAGING_AGE_S`; a
    staged history whose report was published (:data:`PUBLISHED`) is merged into the history first.
    Returns what was removed. Builds running on other machines (a shared disk) are left alone."""
    import time

    removed = []
    folder = Path(folder)
    if not folder.is_dir():
        return removed
    for path in [*folder.glob(".*.partial"), *folder.glob(f".*{STAGED_HISTORY}")]:
        if not path.is_dir():
            continue
        m = _STAGING.fullmatch(path.name.removesuffix(STAGED_HISTORY) + ".partial") \
            if path.name.endswith(STAGED_HISTORY) else _STAGING.fullmatch(path.name)
        if m:
            stale = m.group("host") == _host_tag() and not process_alive(int(m.group("pid")))
        else:
            try:
                stale = bool(_LEGACY_STAGING.fullmatch(path.name)) and \
                    time.time() - path.stat().st_mtime > LEGACY_STAGING_AGE_S
            except OSError:
                stale = False
        if stale:
            published = path / PUBLISHED
            if path.name.endswith(STAGED_HISTORY) and published.is_file():  # killed between publishing and merging
                try:
                    done = json.loads(published.read_text(encoding="utf-8"))
                    merge_history(path, done["history_dir"], skip=done["skip"])
                except (OSError, ValueError, KeyError, TypeError, InputError):
                    pass  # unreadable marker: the runs stay out of the history, as for any failed report
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _publish(staging: Path, folder: Path, stamp: str) -> Path:
    """Move the finished staging folder to ``folder/stamp`` (``stamp-2``, ... if taken): one atomic rename."""
    suffix = 1
    while True:
        target = folder / (stamp if suffix == 1 else f"{stamp}-{suffix}")
        try:
            os.rename(staging, target)
            return target
        except OSError:
            if not target.exists():
                raise
            suffix += 1


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


def build_report(
    experiment: str = "default",
    parameters: dict | None = None,
    notebooks=None,
    *,
    notebooks_dir="notebooks",
    reports_dir="reports",
    now=None,
    progress_bar: bool = True,
    hide_input: bool = False,
    jobs: int | None = None,
    history_dir=None,
) -> Path:
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
    """
    parameters = dict(parameters or {})
    check_name(experiment, what="experiment name")
    paths = _notebook_paths(notebooks, notebooks_dir, parameters)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths)))

    root = Path(reports_dir).resolve()
    stamp = _timestamp(now)
    folder = root / experiment
    folder.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(folder)
    staging = _make_staging(folder, stamp)
    copied: list[str] = []
    staged_history = None
    try:
        run_record = RunRecord(experiment, stamp, dict(parameters))
        if history_dir is not None:
            history_dir = Path(history_dir).resolve()
            staged_history = staging.with_name(staging.name.removesuffix(".partial") + STAGED_HISTORY)
            copied = _copy_history(history_dir, staged_history)
            parameters = {**parameters, "history_dir": str(staged_history)}
            run_record.parameters["history_dir"] = str(history_dir)
        done = _run_notebooks(paths, staging, parameters, hide_input, progress_bar, jobs)
        summary, failures = _record_runs(done, run_record)
        run_dir = _write_run(staging, folder, stamp, summary, run_record)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if staged_history is not None:
            shutil.rmtree(staged_history, ignore_errors=True)
        raise
    if history_dir is not None and not failures:  # published: its runs join the history (a failed report's do not)
        atomic_write_text(staged_history / PUBLISHED, json.dumps({"history_dir": str(history_dir), "skip": copied}))
    write_index(root)  # the run is listed before its history is merged: a kill in between loses neither
    if history_dir is not None:
        if not failures:
            merge_history(staged_history, history_dir, skip=copied)
        shutil.rmtree(staged_history, ignore_errors=True)
    if failures:
        raise ReportError("notebook(s) failed; partial executed notebooks kept in "
                          f"{run_dir}:\n  " + "\n  ".join(failures))
    return run_dir


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


def _copy_history(history_dir: Path, staged_history: Path) -> list[str]:
    """Make the staging copy of the run history (a new folder ``staged_history``) from ``history_dir``'s
    ``*.json`` files (none when it does not exist yet); returns the names copied (the runs not to merge back)."""
    copied = []
    staged_history.mkdir()
    for p in sorted(history_dir.glob("*.json")) if history_dir.is_dir() else []:
        shutil.copyfile(p, staged_history / p.name)
        copied.append(p.name)
    return copied


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
    """Write ``summary.json`` and ``run.json`` into ``staging`` and publish it under ``folder`` (:func:`_publish`);
    when the timestamp was taken, ``run.json`` records the folder's own name. Returns the run folder."""
    (staging / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    (staging / "run.json").write_text(json.dumps(asdict(run_record), indent=2, default=str), encoding="utf-8")
    run_dir = _publish(staging, folder, stamp)
    if run_dir.name != stamp:
        run_record.timestamp = run_dir.name
        atomic_write_text(run_dir / "run.json", json.dumps(asdict(run_record), indent=2, default=str))
    return run_dir


EXPERIMENT_NOTEBOOK = Path(__file__).resolve().parent / "experiment.ipynb"


def duplicate_logs(logs: list) -> list[str]:
    """One sentence per group of logs (``{"source", "fingerprint"}``) that hold the same retrieved items: the history
    keeps one run of them, so the report cannot compare them with each other."""
    groups: dict = {}
    for log in logs:
        groups.setdefault(log["fingerprint"], []).append(str(log["source"]))
    return [f"{' and '.join(sources)} hold identical retrieved items (one run logged {len(sources)} times): the "
            "history keeps them as one run, so the report does not compare them with each other."
            for sources in groups.values() if len(sources) > 1]


STAGED_HISTORY = ".history"
"""Suffix of the staging copy of the history beside a report being built (``.<stamp>-<host>-<pid>-<token>.history``
in the experiment's folder, never inside the published run; removed once its runs are merged)."""
PUBLISHED = "published.json"
"""Written into the staging copy of the history once its report is published without a failure: a build killed
before merging leaves it, and the next build (:func:`clean_stale_staging`) merges the runs then."""


def build_experiment_report(experiment: str, *, golden, runs, pages=None, answers=None, generator=None,
                            preset: str = "native", fields=(), page_base=None, ks=(1, 3, 5), min_chars: int = 24,
                            window: int = 1, judge: str | None = None, measure: str | None = None,
                            order: str = "made", alpha: float = 0.05, drilldowns: int = 20, reports_dir="reports",
                            now=None, progress_bar: bool = True) -> Path:
    """The experiment report of a system's retrieval logs (``rag-metrics report --run LOG``).

    Every input is read and validated first (:func:`rag_metrics.report.inputs.read_inputs`, the checks of
    :func:`check_experiment_inputs`) -- golden set, pages, each log matched to them, the headline judge, answers -- so
    that bad input is an :class:`~rag_metrics.InputError` naming its file, line and field, and nothing is written.
    ``runs`` may carry their own shapes (``langchain:LOG``, :func:`rag_metrics.io.logs.parse_run_spec`);
    ``preset``/``fields``/``page_base`` apply to the others. The validated objects are handed to ``experiment.ipynb``
    (a private cache file, removed afterwards) so the notebook does not read them again; the reading happens in a
    child process (:func:`rag_metrics.report.inputs.hand_over`), so this process never holds them while the kernel
    does. The notebook runs through papermill into ``reports_dir/experiment/<UTC timestamp>/``; each log's evaluation
    joins the experiment's history (``reports_dir/experiment/history/``) once the report is published. The runs are
    ordered by when they were made (``order="made"``: the log's settings, else the file's modification time) or as
    given (``order="given"``); the newest is the report's subject, compared on ``measure`` with the previous
    comparable run at level ``alpha``; at most ``drilldowns`` questions are shown item by item. On the terminal
    (stderr) it says when most of a log's questions are not in the golden set, and how the runs were ordered.
    """
    from rag_metrics.io.logs import parse_run_spec
    from rag_metrics.report.inputs import hand_over

    mapping, ks = _check_options(experiment, golden=golden, runs=runs, preset=preset, fields=fields,
                                 page_base=page_base, ks=ks, min_chars=min_chars, window=window, judge=judge)
    _check_comparison(drilldowns=drilldowns, order=order, alpha=alpha, measure=measure, ks=ks)
    absolute = lambda p: None if p is None else str(Path(p).resolve())  # noqa: E731 - the notebook runs elsewhere
    specs = [parse_run_spec(r) for r in runs]
    history = Path(reports_dir) / experiment / "history"
    reading = dict(golden=absolute(golden), runs=[str(spec.with_path(absolute(spec.path))) for spec in specs],
                   pages=absolute(pages) if pages else pages, answers=absolute(answers) if answers else answers,
                   generator=generator, preset=preset, fields=mapping, page_base=page_base)
    parameters = {"experiment": experiment, "golden": reading["golden"], "runs": reading["runs"],
                  "pages": reading["pages"], "answers": reading["answers"], "generator": generator, "preset": preset,
                  "fields": mapping, "page_base": page_base, "ks": ks, "min_chars": min_chars, "window": window,
                  "primary": judge, "measure": measure, "order": order, "alpha": alpha, "drilldowns": drilldowns,
                  "history_dir": absolute(history)}
    cache_dir = Path(tempfile.mkdtemp(prefix="rag-metrics-inputs-"))
    try:
        cache = cache_dir / "inputs.pickle"
        # read and validated once, in a child: this process holds none of it
        info = hand_over(reading, order, cache, judge=judge)
        _say_what_was_read(info, progress_bar)
        parameters["inputs"] = str(cache)
        return build_report(experiment, parameters, [EXPERIMENT_NOTEBOOK], reports_dir=reports_dir, now=now,
                            progress_bar=progress_bar, hide_input=True, history_dir=history)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)


def _check_comparison(*, drilldowns, order, alpha, measure, ks) -> None:
    """The comparison's options checked before any file is read: drill-downs, run order, alpha, the measure."""
    from rag_metrics.core.errors import check_int
    from rag_metrics.experiment.history import RUN_ORDERS

    check_int(drilldowns, "drilldowns", low=0)
    check_choice(order, RUN_ORDERS, "order", what="unknown run", field="order")
    check_alpha(alpha)
    if measure is not None:
        check_choice(measure, [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"], "measure", what="",
                     field="measure")


def _say_what_was_read(info: dict, progress_bar: bool) -> None:
    """On stderr: a log most of whose questions the golden set lacks, logs that are copies, and the runs' order
    (always when there are several runs; with one, only alongside the progress bar)."""
    import sys

    from rag_metrics.experiment.history import RULES

    for log in info["logs"]:
        if log["unknown"] * 2 > log["questions"]:
            print(f"rag-metrics report: {log['source']}: {log['unknown']} of {log['questions']} logged questions "
                  "are not in the golden set and are not used (their IDs, or their texts when the log has no "
                  "IDs, match no golden question).", file=sys.stderr)
        if log.get("not_logged"):
            print(f"rag-metrics report: {log['source']}: logged {log['labelled'] - log['not_logged']} of the "
                  f"{log['labelled']} labelled questions; {log['not_logged']} are not in it. Two runs are compared on "
                  "the questions both logged.", file=sys.stderr)
    for line in duplicate_logs(info["logs"]):
        print(f"rag-metrics report: {line}", file=sys.stderr)
    if progress_bar or len(info["order"]) > 1:
        names = ", ".join(f"{Path(e['source']).name} ({e['made_at'] or 'time unknown'})" for e in info["order"])
        rules = sorted({e["ordered_by"] for e in info["order"]}, key=str)
        print(f"rag-metrics report: runs oldest first: {names}; ordered by "
              f"{'; '.join(RULES[r] for r in rules)}.", file=sys.stderr)


def check_run_names(runs) -> None:
    """Refuse two different logs that would be one run name: a run is named after its log's file name without its
    extension (:attr:`rag_metrics.io.logs.RunLog.name`), and the report and its history tell runs apart by it
    (``a/run.jsonl`` and ``b/run.jsonl`` would both be run ``run``). The same file given twice is one run (the
    report says so)."""
    from rag_metrics.io.logs import parse_run_spec

    seen: dict = {}
    for run in runs:
        path = parse_run_spec(run).path
        name, resolved = Path(path).stem, Path(path).resolve()
        first = seen.setdefault(name, (path, resolved))
        if first[1] != resolved:
            raise InputError(f"--run: {first[0]} and {path} are both run {name!r} (a run is named after its log's file "
                             "name, without the extension); give one of them another file name.", field="run")


def _check_options(experiment, *, golden, runs, preset, fields, page_base, ks, min_chars, window, judge):
    """The options of an experiment report checked before any file is read: ``(field mapping, sorted ks)``."""
    from rag_metrics.core.errors import check_int
    from rag_metrics.io.logs import PRESETS, parse_field_mapping
    from rag_metrics.judging.judges import JUDGES

    check_name(experiment, what="experiment name")
    if not golden:
        raise InputError("an experiment report needs the golden set: --golden FILE.")
    if not runs:
        raise InputError("an experiment report needs at least one retrieval log: --run LOG.")
    check_choice(preset, PRESETS, "log preset", what="unknown", field="preset")
    if page_base is not None and page_base not in (0, 1):
        raise InputError(f"page base {page_base!r}: expected 0 or 1.", field="page_base")
    check_run_names(runs)
    mapping = parse_field_mapping(fields) if not isinstance(fields, dict) else dict(fields)
    ks = sorted({check_int(k, "k") for k in ks})
    if not ks:
        raise InputError("give at least one cutoff k.", field="k")
    check_int(min_chars, "min_chars")
    check_int(window, "window", low=0)
    if judge is not None:
        check_choice(judge, JUDGES, "judge", what="unknown", field="judge")
    return mapping, ks


def check_experiment_inputs(experiment: str, *, golden, runs, pages=None, answers=None, generator=None,
                            preset: str = "native", fields=(), page_base=None, ks=(1, 3, 5), min_chars: int = 24,
                            window: int = 1, judge: str | None = None):
    """Everything the experiment report would refuse, refused before anything is written: returns ``(run specs,
    field mapping, ks)``.

    Reads the golden set (against the pages when given) and every log with its shape, matched to them as it is
    read (questions, documents by path suffix; :func:`rag_metrics.io.logs.load_log`); places text-only items or
    refuses them without pages (:func:`rag_metrics.experiment.evaluate.prepare_log`); refuses a headline judge
    that does not apply to a log (:func:`rag_metrics.experiment.evaluate.check_judge`); joins the answers as
    the report does (:func:`rag_metrics.experiment.attribution.join_answers`) -- all in
    :func:`rag_metrics.report.inputs.read_inputs`, the reading the report itself uses.
    """
    from rag_metrics.io.logs import parse_run_spec
    from rag_metrics.report.inputs import read_inputs

    mapping, ks = _check_options(experiment, golden=golden, runs=runs, preset=preset, fields=fields,
                                 page_base=page_base, ks=ks, min_chars=min_chars, window=window, judge=judge)
    read_inputs(golden=golden, runs=runs, pages=pages, answers=answers, generator=generator, preset=preset,
                fields=mapping, page_base=page_base, judge=judge)
    return [parse_run_spec(r) for r in runs], mapping, ks
