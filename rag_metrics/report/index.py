"""The reports index: every experiment and its runs, rebuilt from the run folders.

``reports/index.html`` is rendered from ``rag_metrics/templates/index.html.j2`` (Jinja2, autoescaped; links
URL-quoted). It is rebuilt from a scan of ``reports/<experiment>/<run>/run.json`` under a file lock
and replaced atomically, so every finished run appears even when several reports are built at
once. Per experiment it shows each headline figure's latest value (from the newest run that
recorded it) with its CI and the delta against the run before that, then every run with links
to its pages.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..html import href, render

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
    (:func:`rag_metrics.analysis.stats.paired_test`: sign test for 0/1 values, randomization test otherwise) gives
    ``p_value``, the interval ``ci_low``/``ci_high`` and ``verdict``; ``within_noise`` is ``p >= 0.05``, the same
    event as the interval holding 0. Otherwise only the difference of the means, marked unpaired.
    """
    from ..analysis.stats import paired_test

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


def _context(root: Path) -> dict:
    by_experiment: dict[str, list] = {}
    for rec in runs(root):
        by_experiment.setdefault(rec["experiment"], []).append(rec)
    experiments = []
    for name in sorted(by_experiment):
        records = sorted(by_experiment[name], key=lambda r: r["_dir"], reverse=True)
        seen: list = []
        for rec in records:  # newest first: the first run holding a figure gives its latest value
            for notebook, figures in rec["_summary"].items():
                for fig_name in figures:
                    if (notebook, fig_name) not in seen:
                        seen.append((notebook, fig_name))
        figures = []
        for notebook, fig_name in seen:
            holders = [r for r in records if fig_name in r["_summary"].get(notebook, {})]
            fig = holders[0]["_summary"][notebook][fig_name]
            delta = headline_delta(holders[1]["_summary"][notebook][fig_name], fig) if len(holders) > 1 else None
            figures.append({"notebook": notebook, "name": fig_name, "value": _fmt_headline(fig), "delta": delta,
                            "run": holders[0]["timestamp"]})
        run_rows = []
        for rec in records:
            pages = []
            for nb in rec.get("notebooks", []):
                label = Path(nb["notebook"]).stem
                pages.append({"label": label, "href": href(rec["_dir"], nb["html"]) if nb.get("html") else None,
                              "failed": nb.get("status") != "ok", "error": nb.get("error") or ""})
            run_rows.append({"timestamp": rec["timestamp"],
                             "parameters": json.dumps(rec.get("parameters") or {}, sort_keys=True, ensure_ascii=False),
                             "pages": pages})
        experiments.append({"name": name, "latest": records[0]["timestamp"],
                            "parameters": json.dumps(records[0].get("parameters") or {}, sort_keys=True,
                                                     ensure_ascii=False),
                            "figures": figures, "runs": run_rows})
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
