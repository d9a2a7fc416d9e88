"""Run history: save every evaluation as a timestamped record, list them, diff two of them.

A record is one JSON file ``<history_dir>/<UTC timestamp>_<name>.json``::

    {"id", "name", "timestamp", "config": {...}, "fingerprint": {"golden", "corpus", "chunking", "judge"},
     "summary": {measure: {"mean", "evaluated", "excluded", "excluded_ids"}},
     "per_query": {question_id: {measure: value|null}}, "unknown_questions": [...], "settings": {...}}

(everything from ``"summary"`` on is :meth:`rag_metrics.Evaluation.to_dict`).

:func:`diff` lists per-measure deltas and per-question flips (newly hit / newly missed for
0/1 measures such as hit@k; improved / worsened otherwise). It refuses, with a message
naming what differs, to compare runs whose golden set or judge differ, unless
``force=True``: such numbers measure different things. The corpus and chunking may differ
-- that is usually what an experiment changes -- and the diff reports it.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError, check_name
from ..fingerprint import check_comparable, digest

__all__ = ["save_run", "load_run", "list_runs", "diff", "RunDiff", "REFUSE_ON"]

REFUSE_ON = ("golden", "judge")


def save_run(evaluation, history_dir="history", *, name: str = "run", golden=None, corpus=None, chunking=None,
             judge=None, config: dict | None = None, now=None) -> Path:
    """Save ``evaluation`` with the fingerprint of what it was computed on; returns the file path.

    ``golden``, ``corpus``, ``chunking`` and ``judge`` may be any value (a table, a dict of
    parameters, a version string); each is recorded as a digest.
    """
    check_name(name, what="run name")
    now = now or _dt.datetime.now(_dt.timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    folder = Path(history_dir)
    folder.mkdir(parents=True, exist_ok=True)
    judge_value = judge.params() if hasattr(judge, "params") else judge
    record = {
        "id": f"{stamp}_{name}",
        "name": name,
        "timestamp": now.isoformat(),
        "config": config or {},
        "fingerprint": {"golden": digest(golden), "corpus": digest(corpus), "chunking": digest(chunking),
                        "judge": digest(judge_value)},
        "judge": judge_value,
        **evaluation.to_dict(per_query=True),
    }
    path = folder / f"{record['id']}.json"
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    return path


def load_run(ref, history_dir="history") -> dict:
    """Load a record by path, by id, or by a unique id prefix or name suffix."""
    path = Path(ref)
    if not path.is_file():
        folder = Path(history_dir)
        matches = [p for p in sorted(folder.glob("*.json")) if p.stem == str(ref) or p.stem.startswith(str(ref))
                   or p.stem.endswith(f"_{ref}")]
        if not matches:
            raise InputError(f"no run {ref!r} in {folder}/ (see `rag-metrics history list`).")
        if len(matches) > 1 and not any(p.stem == str(ref) for p in matches):
            raise InputError(f"run {ref!r} is ambiguous in {folder}/: {[p.stem for p in matches]}.")
        path = next((p for p in matches if p.stem == str(ref)), matches[-1])
    return _read_record(path)


def _read_record(path: Path) -> dict:
    """One saved record; a file that is not a record is an error naming it."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(f"not valid UTF-8 (byte {e.start}); expected a run record written by save_run.",
                         path=path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno}); expected a run record written by save_run. "
                         "Move or delete the file.", path=path, line=e.lineno) from None
    missing = [k for k in ("id", "name", "timestamp", "summary", "fingerprint") if not isinstance(rec, dict) or k not in rec]
    if missing:
        raise InputError(f"not a run record (missing {missing}); expected a file written by save_run.", path=path)
    return rec


def list_runs(history_dir="history") -> pd.DataFrame:
    """One row per saved run, oldest first: id, name, timestamp and the summary means."""
    rows = []
    for p in sorted(Path(history_dir).glob("*.json")):
        rec = _read_record(p)
        rows.append({"id": rec["id"], "name": rec["name"], "timestamp": rec["timestamp"],
                     **{m: v["mean"] for m, v in rec["summary"].items()}})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class RunDiff:
    """``measures``: previous, current, delta per measure; ``flips``: question_id, measure, previous,
    current, change; ``differs``: fingerprint components that differ."""

    previous: str
    current: str
    measures: pd.DataFrame
    flips: pd.DataFrame
    differs: list

    def newly(self, change: str) -> list:
        return self.flips.loc[self.flips["change"] == change, "question_id"].unique().tolist()


def diff(previous, current, *, force: bool = False, history_dir="history") -> RunDiff:
    """Compare two saved runs (records, paths or ids); see the module docstring for what is refused."""
    a = previous if isinstance(previous, dict) else load_run(previous, history_dir)
    b = current if isinstance(current, dict) else load_run(current, history_dir)
    differs = check_comparable(a["fingerprint"], b["fingerprint"], force=force, what=f"{a['id']} and {b['id']}",
                               refuse_on=REFUSE_ON, notes={"judge": f"; {a.get('judge')} vs {b.get('judge')}"})
    measures = sorted(set(a["summary"]) & set(b["summary"]), key=list(b["summary"]).index)
    rows = {m: {"previous": a["summary"][m]["mean"], "current": b["summary"][m]["mean"]} for m in measures}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["delta"] = table["current"] - table["previous"]
    table.index.name = "measure"
    flips = []
    for q in sorted(set(a["per_query"]) & set(b["per_query"])):
        for m in measures:
            x, y = a["per_query"][q].get(m), b["per_query"][q].get(m)
            if x is None or y is None or x == y:
                continue
            binary = {x, y} <= {0.0, 1.0}
            change = ("newly hit" if y > x else "newly missed") if binary else ("improved" if y > x else "worsened")
            flips.append({"question_id": q, "measure": m, "previous": x, "current": y, "change": change})
    flips_df = pd.DataFrame(flips, columns=["question_id", "measure", "previous", "current", "change"])
    return RunDiff(a["id"], b["id"], table, flips_df, differs)


