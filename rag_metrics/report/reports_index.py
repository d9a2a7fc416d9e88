"""The reports index: every experiment and its report builds, rebuilt from the run folders.

``reports/index.html`` is rendered from ``rag_metrics/templates/index.html.j2`` (Jinja2, autoescaped; links
URL-quoted). It is rebuilt from a scan of ``reports/<experiment>/<build>/run.json`` under a file lock
and replaced atomically, so every finished build appears even when several reports are built at
once. Per experiment:

* an experiment report (``rag-metrics report --run``) records its newest run, verdict and trend in
  ``summary.json``; the index shows, from the build describing the experiment's newest *run* (by when the runs
  were made, not when reports were built), the verdict line, a small trend of the primary measure across the
  runs with their intervals (each run linking to its own report -- the newest build describing it -- or, when no
  build describes it, saying which run's report shows it) and that build's headline
  figures -- the change between runs comes from the experiment's history, never from comparing report builds;
* other notebooks: each headline figure's latest value with its CI and the change against the previous build
  that recorded it (there, a build is a run);

then every build, with its parameters (file names, not absolute paths) and links to its pages.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from rag_metrics.core.html import href, render
from rag_metrics.report.kernel import EXPERIMENT_KEY

__all__ = ["write_index", "headline_delta", "runs"]

LOCK_NAME = ".index.lock"


def runs(root: Path) -> list[dict]:
    """Every finished run under ``root``: its run.json plus ``_summary`` (summary.json) and ``_dir``."""
    records = []
    for run_json in sorted(Path(root).glob("*/*/run.json")):
        if any(part.startswith(".") for part in run_json.relative_to(root).parts[:2]):
            continue  # a staging folder, or anything hidden
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

    Paired when both recorded per-question values for the same questions: the exact paired test
    (:func:`rag_metrics.stats.paired_test`: sign test for 0/1 values, bounded-mean test otherwise) gives
    ``p_value``, the interval ``ci_low``/``ci_high`` and ``verdict``; ``within_noise`` is ``p >= 0.05``, the same
    event as the interval holding 0. Otherwise only the difference of the means, marked unpaired.
    """
    from rag_metrics.stats import paired_test

    pa, pb = previous.get("per_question"), latest.get("per_question")
    if pa and pb and set(pa) == set(pb):
        import pandas as pd

        c = paired_test(pd.Series(pa, dtype=float), pd.Series(pb, dtype=float), measure=str(latest.get("name", "")))
        return {"delta": c.delta, "ci_low": c.ci_low, "ci_high": c.ci_high, "paired": True,
                "within_noise": c.within_noise, "verdict": c.verdict, "p_value": c.p_value, "wins": c.wins,
                "ties": c.ties, "losses": c.losses, "method": c.method}
    reason = "questions differ" if pa and pb else "no per-question values"
    return {"delta": latest["mean"] - previous["mean"], "paired": False, "reason": reason}


def _fmt_headline(h: dict) -> str:
    ci = f" [{h['ci_low']:.3f}, {h['ci_high']:.3f}]" if h.get("ci_low") is not None else ""
    n = f" (n={h['n']})" if h.get("n") else ""
    return f"{h['mean']:.3f}{ci}{n}"


HIDDEN_PARAMETERS = ("inputs", "history_dir")
"""Report parameters the index does not show: a temporary hand-over file, and the history folder (beside the run)."""


def _show_value(value) -> str:
    if isinstance(value, str) and os.path.isabs(value):
        return Path(value).name  # where the file lives is the user's business; its name says which it was
    if isinstance(value, (list, tuple)):
        return ", ".join(_show_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_show_value(v)}" for k, v in value.items()) or "{}"
    return "-" if value is None else str(value)


def _parameters(parameters: dict) -> list[tuple[str, str]]:
    """A build's parameters as (name, value) pairs to show: file names instead of absolute paths, unset and
    hand-over parameters left out."""
    return [(k, _show_value(v)) for k, v in sorted((parameters or {}).items())
            if k not in HIDDEN_PARAMETERS and v not in (None, "", [], {})]


def _chart(trend: list[dict], links: dict) -> dict | None:
    """Coordinates of the trend chart: one point per run (mean) with its interval, y from 0 to 1, each run's name
    under its point (cut to :data:`LABEL_CHARS` characters, whole in the point's tooltip) and its mean beside it."""
    if not trend:
        return None
    step, height, top, left = 130, 180, 12, 44
    points = []
    for i, t in enumerate(trend):
        y = lambda v: top + (1 - max(0.0, min(1.0, v))) * height  # noqa: E731
        mean = t["mean"]
        if mean is None:
            continue
        low = t["low"] if t["low"] is not None else mean
        high = t["high"] if t["high"] is not None else mean
        points.append({"x": left + step * i + step / 2, "y": round(y(mean), 1), "y_low": round(y(low), 1),
                       "y_high": round(y(high), 1), "run": t["run"], "made_at": t["made_at"],
                       "text": f"{mean:.3f} [{low:.3f}, {high:.3f}]", "mean": f"{mean:.3f}", "href": links.get(t["id"]),
                       "label": t["run"] if len(t["run"]) <= LABEL_CHARS else t["run"][:LABEL_CHARS - 1] + "…"})
    return {"width": left + step * len(trend) + 8, "height": height + 2 * top + 30, "top": top, "bottom": top + height,
            "mid": top + height / 2, "left": left, "points": points, "label_y": top + height + 22}


LABEL_CHARS = 18
"""Run names under the trend chart's points are cut to this many characters (the tooltip holds the whole name)."""


def _experiment_view(records: list[dict]) -> dict | None:
    """An experiment's newest verdict and trend, from the build that describes its newest run (the experiment
    reports record them in ``summary.json``): the run made last; among builds describing it, the newest."""
    built = [r for r in records if isinstance(r["_summary"].get(EXPERIMENT_KEY), dict)]
    if not built:
        return None
    # records are newest build first: max() keeps the first of equal run times
    newest = max(built, key=lambda r: r["_summary"][EXPERIMENT_KEY].get("made_at") or "")
    block = newest["_summary"][EXPERIMENT_KEY]
    own: dict = {}  # a run's own report: the newest build describing it (its subject)
    shown: dict = {}  # else the newest build that shows it, as baseline or in its trend, and that build's subject
    for rec in built:  # newest build first
        page = next((nb.get("html") for nb in rec.get("notebooks", []) if nb.get("html")), None)
        if not page:
            continue
        summary = rec["_summary"][EXPERIMENT_KEY]
        link = href(rec["_dir"], page)
        own.setdefault(summary.get("subject_id"), link)
        for sid in [summary.get("baseline_id")] + [t.get("id") for t in summary.get("trend") or []]:
            if sid:
                shown.setdefault(sid, (link, summary.get("subject")))
    verdict = block.get("verdict") or {}
    trend = [{**t, "made_at": when(t.get("made_at"))} for t in block.get("trend") or []]
    rows = []
    for t in trend:
        elsewhere = shown.get(t["id"]) if t["id"] not in own else None
        rows.append({**t, "href": own.get(t["id"]), "shown_href": elsewhere[0] if elsewhere else None,
                     "shown_in": elsewhere[1] if elsewhere else None})
    return {"subject": block.get("subject"), "made_at": when(block.get("made_at")), "measure": block.get("measure"),
            "judge": block.get("judge"), "baseline": block.get("baseline"), "line": block.get("line"),
            "outcome": verdict.get("outcome"), "build": newest["timestamp"],
            "href": own.get(block.get("subject_id")), "chart": _chart(trend, own), "trend": rows}


def when(stamp) -> str | None:
    """A recorded time as a reader wants it: to the second, in UTC (``2026-12-02T06:02:24.123456Z`` ->
    ``2026-12-02 06:02:24 UTC``); anything else as it is."""
    import re

    if not isinstance(stamp, str):
        return stamp
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|\+00:00)", stamp)
    return f"{m.group(1)} {m.group(2)} UTC" if m else stamp


def _context(root: Path) -> dict:
    by_experiment: dict[str, list] = {}
    for rec in runs(root):
        by_experiment.setdefault(rec["experiment"], []).append(rec)
    experiments = []
    for name in sorted(by_experiment):
        records = sorted(by_experiment[name], key=lambda r: r["_dir"], reverse=True)
        view = _experiment_view(records)
        seen: list = []
        for rec in records:  # newest first: the first run holding a figure gives its latest value
            for notebook, figures in rec["_summary"].items():
                if notebook.startswith("_") or not isinstance(figures, dict):
                    continue
                for fig_name in figures:
                    if (notebook, fig_name) not in seen:
                        seen.append((notebook, fig_name))
        figures = []
        for notebook, fig_name in seen:
            holders = [r for r in records if fig_name in (r["_summary"].get(notebook) or {})]
            if view is not None:  # an experiment: the figures of the build describing its newest run, no build delta
                holders = [r for r in holders if r["timestamp"] == view["build"]]
                if not holders:
                    continue
            fig = holders[0]["_summary"][notebook][fig_name]
            delta = headline_delta(holders[1]["_summary"][notebook][fig_name], fig) \
                if len(holders) > 1 and view is None else None
            figures.append({"notebook": notebook, "name": fig_name, "value": _fmt_headline(fig), "delta": delta,
                            "run": holders[0]["timestamp"]})
        run_rows = []
        for rec in records:
            pages = []
            for nb in rec.get("notebooks", []):
                label = Path(nb["notebook"]).stem
                pages.append({"label": label, "href": href(rec["_dir"], nb["html"]) if nb.get("html") else None,
                              "failed": nb.get("status") != "ok", "error": nb.get("error") or ""})
            block = rec["_summary"].get(EXPERIMENT_KEY)
            run_rows.append({"timestamp": rec["timestamp"], "parameters": _parameters(rec.get("parameters")),
                             "describes": block.get("subject") if isinstance(block, dict) else None,
                             "pages": pages})
        title = "Teaching notebooks" if view is None and name == "default" else None
        experiments.append({"name": name, "latest": records[0]["timestamp"], "view": view, "title": title,
                            "figures": figures, "runs": run_rows})
    # experiment reports first (their verdicts are what a reader looks for), then the teaching notebooks' builds
    experiments.sort(key=lambda e: (e["view"] is None, e["name"]))
    return {"experiments": experiments}


@contextlib.contextmanager
def _locked(root: Path):
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock (index writes are still atomic)
        yield
        return
    with open(root / LOCK_NAME, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_index(reports_dir="reports") -> Path:
    """(Re)write ``reports_dir/index.html`` from the run folders (see the module docstring)."""
    root = Path(reports_dir)
    root.mkdir(parents=True, exist_ok=True)
    index = root / "index.html"
    with _locked(root):
        page = render("index.html.j2", **_context(root))
        tmp = root / f".index.html.{os.getpid()}.tmp"
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, index)
    return index
