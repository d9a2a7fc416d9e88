"""Experiment reports: run notebooks through papermill, export standalone HTML, keep an index.

Layout written under ``reports_dir`` (default ``reports/``)::

    reports/index.html                          every experiment and its runs, newest first
    reports/<experiment>/<UTC timestamp>/       one folder per run
        <notebook>.ipynb                        the executed notebook (kept even when it fails)
        <notebook>.html                         standalone HTML, figures embedded as base64
        run.json                                parameters, notebook status, failures
        summary.json                            headline figures the notebooks recorded

A notebook records a headline figure with :func:`record`; the index shows each
experiment's latest run with its headline figures and bootstrap CIs, and the difference to
the experiment's previous run -- a paired bootstrap CI when both runs recorded
per-question values for the same questions, flagged "within noise" when it includes 0.

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

__all__ = ["ReportError", "build_report", "parse_parameters", "write_index", "export_html", "record", "headlines"]

HEADLINE_MIME = "application/vnd.rag-metrics.headline+json"

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


def record(name: str, values=None, *, mean: float | None = None, ci: tuple | None = None, seed: int = 0) -> None:
    """Record a headline figure from a notebook (collected into the run's ``summary.json``).

    Give per-question ``values`` (a Series indexed by question ID; NaN = undefined,
    excluded) to get the mean with a bootstrap CI and paired deltas between runs, or a
    plain ``mean`` (and optionally ``ci``). Displays one line of text (checked by nbval)
    and a machine-readable output that :func:`headlines` reads back.
    """
    import pandas as pd

    from .stats import bootstrap_ci

    data: dict = {"name": str(name)}
    if values is not None:
        series = pd.Series(values, dtype=float)
        m, low, high, n = bootstrap_ci(series, seed=seed)
        data |= {"mean": m, "ci_low": low, "ci_high": high, "n": n,
                 "per_question": {str(k): (None if v != v else float(v)) for k, v in series.items()}}
    elif mean is not None:
        data |= {"mean": float(mean), "ci_low": None if ci is None else float(ci[0]),
                 "ci_high": None if ci is None else float(ci[1]), "n": None}
    else:
        raise ValueError("record: give per-question 'values' or a 'mean'.")
    ci_text = f" [{data['ci_low']:.3f}, {data['ci_high']:.3f}]" if data.get("ci_low") is not None else ""
    n_text = f" (n={data['n']})" if data.get("n") is not None else ""
    text = f"headline {name} = {data['mean']:.3f}{ci_text}{n_text}"
    try:
        from IPython.display import display

        display({HEADLINE_MIME: data, "text/plain": text}, raw=True)
    except ImportError:  # pragma: no cover - outside IPython
        print(text)


def headlines(notebook_path) -> dict:
    """The figures recorded with :func:`record` in an executed notebook: ``{name: data}``."""
    import nbformat

    nb = nbformat.read(str(notebook_path), as_version=4)
    found = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get(HEADLINE_MIME)
            if data:
                found[data["name"]] = dict(data)
    return found


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
    run_record = RunRecord(experiment, run_dir.name, parameters)
    summary: dict = {}

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
            found = headlines(executed)
            if found:
                summary[path.stem] = found
        run_record.notebooks.append(item)

    (run_dir / "run.json").write_text(json.dumps(asdict(run_record), indent=2, default=str), encoding="utf-8")
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
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
            summary_path = run_json.parent / "summary.json"
            data["_summary"] = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.exists() else {}
        except (OSError, json.JSONDecodeError):
            continue
        data["_dir"] = run_json.parent.relative_to(root).as_posix()
        records.append(data)
    return records


def headline_delta(previous: dict, latest: dict) -> dict:
    """Difference latest - previous of one headline figure.

    Paired (bootstrap CI of the per-question differences, ``within_noise`` when it includes
    0) when both recorded per-question values for the same questions; otherwise only the
    difference of the means, marked unpaired.
    """
    from .stats import paired_comparison

    pa, pb = previous.get("per_question"), latest.get("per_question")
    if pa and pb and set(pa) == set(pb):
        import pandas as pd

        c = paired_comparison(pd.Series(pa, dtype=float), pd.Series(pb, dtype=float))
        return {"delta": c.mean_diff, "ci_low": c.ci_low, "ci_high": c.ci_high, "paired": True,
                "within_noise": c.within_noise, "p_value": c.p_value}
    reason = "questions differ" if pa and pb else "no per-question values"
    return {"delta": latest["mean"] - previous["mean"], "paired": False, "reason": reason}


def _fmt_headline(h: dict) -> str:
    ci = f" [{h['ci_low']:.3f}, {h['ci_high']:.3f}]" if h.get("ci_low") is not None else ""
    n = f" (n={h['n']})" if h.get("n") else ""
    return f"{h['mean']:.3f}{ci}{n}"


def _fmt_delta(d: dict | None) -> str:
    if d is None:
        return "first run"
    if not d["paired"]:
        return f"{d['delta']:+.3f} (unpaired: {d['reason']})"
    flag = ' <span class="noise">within noise</span>' if d["within_noise"] else ' <span class="real">CI excludes 0</span>'
    return f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]{flag}"


def write_index(reports_dir="reports") -> Path:
    """(Re)write ``reports_dir/index.html``: per experiment, each headline figure's latest value (from the
    newest run that recorded it) with its CI and the delta against the run before that, then every run
    with links to its notebooks."""
    root = Path(reports_dir)
    root.mkdir(parents=True, exist_ok=True)
    by_experiment: dict[str, list] = {}
    for rec in _runs(root):
        by_experiment.setdefault(rec["experiment"], []).append(rec)
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>rag_metrics reports</title>',
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:75rem}"
        "table{border-collapse:collapse;margin-bottom:1.5rem}th,td{border:1px solid #ccc;padding:.3rem .6rem;"
        "text-align:left}.failed{color:#b00020}.noise{color:#8a6d00}.real{color:#1b5e20}</style></head><body>",
        "<h1>rag_metrics reports</h1>",
        "<p>Headline figures: mean with a 95% bootstrap CI. Δ: change since the experiment's previous run, "
        "with a paired bootstrap CI when both runs scored the same questions; <em>within noise</em> when the CI "
        "includes 0.</p>",
    ]
    if not by_experiment:
        parts.append("<p>No report yet: run <code>make report</code>.</p>")
    for name in sorted(by_experiment):
        runs = sorted(by_experiment[name], key=lambda r: r["_dir"], reverse=True)
        latest = runs[0]
        parts.append(f"<h2>Experiment <code>{esc(name)}</code></h2>")
        parts.append(f"<p>Latest run: <code>{esc(latest['timestamp'])}</code>, parameters "
                     f"<code>{esc(json.dumps(latest.get('parameters') or {}, sort_keys=True))}</code></p>")
        rows = []
        seen = []
        for rec in runs:  # newest first: the first run holding a figure gives its latest value
            for notebook, figures in rec["_summary"].items():
                for fig_name in figures:
                    if (notebook, fig_name) not in seen:
                        seen.append((notebook, fig_name))
        for notebook, fig_name in seen:
            holders = [r for r in runs if fig_name in r["_summary"].get(notebook, {})]
            fig = holders[0]["_summary"][notebook][fig_name]
            delta = headline_delta(holders[1]["_summary"][notebook][fig_name], fig) if len(holders) > 1 else None
            rows.append(f"<tr><td>{esc(notebook)}</td><td>{esc(fig_name)}</td><td>{esc(_fmt_headline(fig))}</td>"
                        f"<td>{_fmt_delta(delta)}</td><td><code>{esc(holders[0]['timestamp'])}</code></td></tr>")
        if rows:
            parts.append("<table><tr><th>notebook</th><th>figure</th><th>mean [95% CI]</th>"
                         "<th>Δ vs previous run recording it</th><th>from run</th></tr>")
            parts += rows
            parts.append("</table>")
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
