"""Experiment reports: run notebooks through papermill, export standalone HTML, keep an index.

Layout written under ``reports_dir`` (default ``reports/``)::

    reports/index.html                          every experiment and its runs, newest first
    reports/<experiment>/<UTC timestamp>/       one folder per run
        <notebook>.ipynb                        the executed notebook (kept even when it fails)
        <notebook>.html                         standalone HTML, figures embedded as base64
        run.json                                parameters, notebook status, failures

The HTML references nothing on the network: MathJax and require.js URLs are blanked and
figures are inline PNG.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["ReportError", "build_report", "parse_parameters", "write_index", "export_html"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ReportError(RuntimeError):
    """A report could not be built as asked; the message says which notebook and why."""


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
    """``["k=5", "name=bm25", "ks=[1,3]"]`` -> ``{"k": 5, "name": "bm25", "ks": [1, 3]}`` (values read as YAML)."""
    import yaml

    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ReportError(f"parameter {item!r}: expected KEY=VALUE with KEY a Python identifier.")
        try:
            params[key] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            params[key] = value
    return params


def _declared_parameters(path: Path) -> dict:
    import papermill

    return papermill.inspect_notebook(str(path))


def export_html(notebook_path: Path, html_path: Path) -> None:
    """Write a standalone HTML file (no network references) for an executed notebook."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    # No external references: these loaders are blanked (figures are inline PNG already).
    for trait in ("mathjax_url", "require_js_url", "mermaid_js_url", "mermaid_layout_elk_js_url"):
        setattr(exporter, trait, "")
    body, _ = exporter.from_notebook_node(nbformat.read(str(notebook_path), as_version=4))
    html_path.write_text(body, encoding="utf-8")


def _timestamp(now=None) -> str:
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%SZ")


def build_report(
    experiment: str = "default",
    parameters: dict | None = None,
    notebooks=None,
    *,
    notebooks_dir="notebooks",
    reports_dir="reports",
    now=None,
    progress_bar: bool = True,
) -> Path:
    """Execute ``notebooks`` (default: every ``notebooks_dir/*.ipynb``) with ``parameters``.

    Returns the run folder. Raises :class:`ReportError` before running anything when a
    parameter is not declared in a notebook's ``parameters`` cell, and after running
    the others when a notebook fails (its partial executed notebook and HTML are kept).
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    parameters = dict(parameters or {})
    if not _NAME.match(experiment):
        raise ReportError(f"experiment name {experiment!r}: use letters, digits, '.', '_' or '-'.")
    notebooks_dir = Path(notebooks_dir)
    paths = [Path(p) for p in notebooks] if notebooks else sorted(notebooks_dir.glob("*.ipynb"))
    if not paths:
        raise ReportError(f"no notebook to run in {notebooks_dir}/.")
    for path in paths:
        if not path.is_file():
            raise ReportError(f"notebook {path} not found.")
        declared = _declared_parameters(path)
        unknown = sorted(set(parameters) - set(declared))
        if unknown:
            raise ReportError(
                f"{path}: parameter(s) {unknown} not declared in its 'parameters' cell "
                f"(declared: {sorted(declared)}); choose the notebook with --notebook."
            )

    root = Path(reports_dir)
    stamp = _timestamp(now)
    run_dir = root / experiment / stamp
    suffix = 1
    while run_dir.exists():
        suffix += 1
        run_dir = root / experiment / f"{stamp}-{suffix}"
    run_dir.mkdir(parents=True)
    record = RunRecord(experiment, run_dir.name, parameters)

    failures = []
    for path in paths:
        executed = run_dir / path.name
        item = NotebookRun(path.name, "ok", executed.name)
        try:
            papermill.execute_notebook(
                str(path),
                str(executed),
                parameters=parameters,
                kernel_name="python3",
                cwd=str(path.parent),
                progress_bar=progress_bar,
            )
        except PapermillExecutionError as e:
            item.status = "failed"
            item.error = f"cell {e.cell_index} (execution count {e.exec_count}): {e.ename}: {e.evalue}"
            failures.append(f"{path}: {item.error}")
        if executed.exists():
            html_path = executed.with_suffix(".html")
            export_html(executed, html_path)
            item.html = html_path.name
        record.notebooks.append(item)

    (run_dir / "run.json").write_text(json.dumps(asdict(record), indent=2, default=str), encoding="utf-8")
    write_index(root)
    if failures:
        raise ReportError(
            "notebook(s) failed; partial executed notebooks kept in "
            f"{run_dir}:\n  " + "\n  ".join(failures)
        )
    return run_dir


def _runs(root: Path):
    records = []
    for run_json in sorted(root.glob("*/*/run.json")):
        try:
            data = json.loads(run_json.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        data["_dir"] = run_json.parent.relative_to(root).as_posix()
        records.append(data)
    return records


def write_index(reports_dir="reports") -> Path:
    """(Re)write ``reports_dir/index.html`` linking every run's notebooks, newest run first."""
    root = Path(reports_dir)
    root.mkdir(parents=True, exist_ok=True)
    by_experiment: dict[str, list] = {}
    for rec in _runs(root):
        by_experiment.setdefault(rec["experiment"], []).append(rec)
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>rag_metrics reports</title>',
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}"
        "table{border-collapse:collapse;margin-bottom:2rem}th,td{border:1px solid #ccc;padding:.3rem .6rem;"
        "text-align:left}.failed{color:#b00020}</style></head><body>",
        "<h1>rag_metrics reports</h1>",
    ]
    if not by_experiment:
        parts.append("<p>No report yet: run <code>make report</code>.</p>")
    for name in sorted(by_experiment):
        runs = sorted(by_experiment[name], key=lambda r: r["_dir"], reverse=True)
        parts.append(f"<h2>Experiment <code>{esc(name)}</code></h2>")
        parts.append("<table><tr><th>run (UTC)</th><th>parameters</th><th>notebooks</th></tr>")
        for rec in runs:
            links = []
            for nb in rec.get("notebooks", []):
                label = esc(nb["notebook"])
                target = f'{esc(rec["_dir"])}/{esc(nb["html"])}' if nb.get("html") else None
                link = f'<a href="{target}">{label}</a>' if target else label
                if nb.get("status") != "ok":
                    link += f' <span class="failed">failed: {esc(nb.get("error") or "")}</span>'
                links.append(link)
            params = esc(json.dumps(rec.get("parameters") or {}, sort_keys=True))
            parts.append(
                f"<tr><td>{esc(rec['timestamp'])}</td><td><code>{params}</code></td><td>{'<br>'.join(links)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    index = root / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index
