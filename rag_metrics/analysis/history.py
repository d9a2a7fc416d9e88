"""Run history: save every evaluation as a timestamped record, list them, diff two of them.

A record is one JSON file ``<history_dir>/<UTC timestamp>_<name>.json``::

    {"id", "name", "timestamp", "config": {...}, "fingerprint": {"golden", "corpus", "chunking", "judge"},
     "summary": {measure: {"mean", "evaluated", "excluded", "excluded_ids"}},
     "per_query": {question_id: {measure: value|null}}, "unknown_questions": [...], "settings": {...}}

(everything from ``"summary"`` on is :meth:`rag_metrics.Evaluation.to_dict`). Records are written atomically
(a killed process leaves no half-written file); a file of the folder that is not a readable record is
skipped with a :class:`HistoryWarning` naming it. :func:`save_experiment` checks whether a run is saved
already and saves it under a lock on the folder, so concurrent reports save each run once.

:func:`diff` lists per-measure deltas and per-question flips (newly hit / newly missed for
0/1 measures such as hit@k; improved / worsened otherwise). It refuses, with a message
naming what differs, to compare runs whose golden set or judge differ, unless
``force=True``: such numbers measure different things. The corpus and chunking may differ
-- that is usually what an experiment changes -- and the diff reports it.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError, check_name
from ..files import FileLock, atomic_write_text
from ..fingerprint import check_comparable, digest

__all__ = ["save_run", "load_run", "list_runs", "diff", "RunDiff", "REFUSE_ON", "save_experiment", "experiment_history",
           "history_table", "safe_name", "merge_history", "HistoryWarning"]

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
    atomic_write_text(path, json.dumps(record, ensure_ascii=False, indent=1, default=str))
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


class HistoryWarning(UserWarning):
    """A file of the history folder that is not a readable run record (a kill mid-write, an edit) was skipped."""


def _readable_records(history_dir) -> list[dict]:
    """Every readable record of the folder, oldest file first; a file that is not one (0 bytes, cut off, not a
    record) is named in a :class:`HistoryWarning` and skipped, so one broken file never breaks every later report."""
    folder = Path(history_dir)
    out = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(_read_record(p))
        except InputError as e:
            warnings.warn(f"skipped {e}", HistoryWarning, stacklevel=3)
    return out


def list_runs(history_dir="history") -> pd.DataFrame:
    """One row per saved run, oldest first: id, name, timestamp and the summary means (unreadable files are skipped
    with a :class:`HistoryWarning` naming them)."""
    rows = []
    for rec in _readable_records(history_dir):
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




def safe_name(text: str) -> str:
    """A run name from any label (a log file's name): characters other than letters, digits, ``._-`` become ``-``."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-.")[:100]
    return name or "run"


def save_experiment(result, history_dir, *, now=None) -> tuple[Path | None, str]:
    """Save an :class:`~rag_metrics.analysis.experiment.ExperimentResult` (its primary judge's evaluation) once.

    The same log judged the same way against the same golden set is saved once: returns
    ``(path, "saved")`` or ``(None, "already in the history as <id>")``. The record's ``config``
    holds the log's path and fingerprint and the time the run was made (``run_time``: when the
    runner started it, else now), which orders the history.
    """
    fp_golden, judge = result.golden.fingerprint(), result.judges[result.primary]
    probe = {"golden": digest(fp_golden), "judge": digest(judge.params())}
    Path(history_dir).mkdir(parents=True, exist_ok=True)
    with FileLock(Path(history_dir) / LOCK_NAME):  # the check and the save, one process at a time
        for rec in _records(history_dir):
            if _same_run(rec, result.settings["log_fingerprint"], probe):
                return None, f"already in the history as {rec['id']}"
        return _save_experiment(result, history_dir, fp_golden, judge, now), "saved"


LOCK_NAME = ".history.lock"
"""The lock file of a history folder (held while a run is checked and saved)."""


def _same_run(rec: dict, log_fingerprint, probe: dict) -> bool:
    return rec.get("config", {}).get("log_fingerprint") == log_fingerprint and \
        {k: rec.get("fingerprint", {}).get(k) for k in probe} == probe


def merge_history(staged_dir, history_dir, *, skip=()) -> list[Path]:
    """Copy the records saved in ``staged_dir`` (a report's staging copy of the history) into ``history_dir``, each
    once: under the history lock, a record of a run already there (same log, golden set and judge) is dropped.
    ``skip``: file names not to copy (those the staging copy started with). Returns the paths added. A report
    adds its runs to the history only when it is published."""
    skip = set(skip)
    staged = [p for p in sorted(Path(staged_dir).glob("*.json")) if p.name not in skip] \
        if Path(staged_dir).is_dir() else []
    if not staged:
        return []
    folder = Path(history_dir)
    folder.mkdir(parents=True, exist_ok=True)
    added = []
    with FileLock(folder / LOCK_NAME):
        present = _records(folder)
        for p in staged:
            try:
                rec = _read_record(p)
            except InputError:
                continue
            probe = {k: rec.get("fingerprint", {}).get(k) for k in ("golden", "judge")}
            fp = rec.get("config", {}).get("log_fingerprint")
            if (folder / p.name).exists() or (fp is not None and any(_same_run(r, fp, probe) for r in present)):
                continue
            target = folder / p.name
            atomic_write_text(target, p.read_text(encoding="utf-8"))
            present.append(rec)
            added.append(target)
    return added


def _save_experiment(result, history_dir, fp_golden, judge, now) -> Path:
    now = now or _dt.datetime.now(_dt.timezone.utc)
    run_time = result.settings.get("run_settings", {}).get("started_at") or now.strftime("%Y-%m-%dT%H:%M:%SZ")
    config = {"log": result.settings["log"], "log_fingerprint": result.settings["log_fingerprint"],
              "run_time": run_time, "ks": result.settings["ks"],
              "retriever": result.settings.get("run_settings", {}).get("retriever"),
              "options": result.settings.get("run_settings", {}).get("options")}
    return save_run(result.evaluation, history_dir, name=safe_name(result.name), golden=fp_golden,
                    corpus=result.settings.get("corpus"), judge=judge, config=config, now=now)


def _records(history_dir) -> list[dict]:
    return _readable_records(history_dir)


def experiment_history(history_dir) -> list[dict]:
    """The saved runs of an experiment, oldest first by the time each run was made."""
    return sorted(_records(history_dir), key=lambda r: (r.get("config", {}).get("run_time") or r["timestamp"], r["id"]))


def history_table(records: list[dict], measures, *, n_resamples: int = 10_000) -> pd.DataFrame:
    """One row per saved run: run time, n, each measure's mean and 95% interval
    (:func:`~rag_metrics.analysis.stats.mean_interval`), and whether it is comparable with the newest run (same
    golden set and judge); the newest comparable pair also gets each measure's paired change with the interval,
    p-value and verdict of the exact paired test (:func:`~rag_metrics.analysis.stats.paired_test`) and a
    ``within noise`` flag (p >= 0.05, the same event as the interval holding 0)."""
    from .stats import mean_interval, paired_test

    if not records:
        return pd.DataFrame()
    newest = records[-1]
    rows = []
    for rec in records:
        per_q = pd.DataFrame.from_dict(rec["per_query"], orient="index")
        row = {"run": rec["name"], "run_time": rec.get("config", {}).get("run_time") or rec["timestamp"],
               "comparable": all(rec["fingerprint"].get(k) == newest["fingerprint"].get(k) for k in REFUSE_ON)}
        present = [m for m in measures if m in per_q]
        row["n"] = int(per_q[present[0]].notna().sum()) if present else 0
        for m in measures:
            if m in per_q:
                iv = mean_interval(per_q[m].astype(float), n_resamples=n_resamples)
                row |= {m: iv.mean, f"{m} low": iv.low, f"{m} high": iv.high}
        rows.append(row)
    table = pd.DataFrame(rows)
    comparable = [r for r in records if all(r["fingerprint"].get(k) == newest["fingerprint"].get(k) for k in REFUSE_ON)]
    if len(comparable) >= 2:
        prev, last = comparable[-2], comparable[-1]
        for m in measures:
            a = pd.Series({q: v.get(m) for q, v in prev["per_query"].items()}, dtype=float)
            b = pd.Series({q: v.get(m) for q, v in last["per_query"].items()}, dtype=float)
            if set(a.index) != set(b.index) or (a.notna() & b.notna()).sum() == 0:
                continue
            c = paired_test(a, b, measure=m, n_resamples=n_resamples)
            i = table.index[-1]
            table.loc[i, f"{m} delta"] = c.delta
            table.loc[i, f"{m} delta low"] = c.ci_low
            table.loc[i, f"{m} delta high"] = c.ci_high
            table.loc[i, f"{m} p"] = c.p_value
            table.loc[i, f"{m} within noise"] = c.within_noise
    return table
