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

The experiment report keeps its history in the same records (one store for reports and the
``rag-metrics history`` commands): :func:`save_experiment` saves a judged log once, with the
configuration a diff shows and each headline measure's interval computed once;
:func:`order_logs` and :func:`experiment_history` order runs by when they were made (the log's
settings, else the file's modification time, or the order given -- never a report's own time);
:func:`previous_comparable`, :func:`config_diff`, :func:`history_table` and :func:`trend` read them.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_name
from rag_metrics.stats.intervals import N_RESAMPLES
from rag_metrics.core.files import FileLock, atomic_write_text
from rag_metrics.core.fingerprint import check_comparable, digest

__all__ = ["save_run", "load_run", "list_runs", "diff", "RunDiff", "REFUSE_ON", "save_experiment", "experiment_history",
           "history_table", "safe_name", "merge_history", "HistoryWarning", "RUN_ORDERS", "RULES", "run_made_at",
           "order_logs", "made_at", "comparable", "per_question", "run_key", "previous_comparable", "interval",
           "config_diff", "trend", "CONFIG_ROWS", "logged", "partial", "log_profile", "read_record"]

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
        **evaluation.to_dict(per_question=True),
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
    return read_record(path)


def read_record(path: Path) -> dict:
    """One saved record (:func:`save_run`) read from ``path``; a file that is not a record is an :class:`InputError`
    naming it (and the line of malformed JSON)."""
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
            out.append(read_record(p))
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


# ---- the experiment history: runs in the order they were made ---------------------------------------------------

RUN_ORDERS = ("made", "given")
"""How an experiment's runs are ordered: ``made`` -- when each run was made (the log's ``.settings.json``
``started_at``, written by ``rag-metrics run``, else the log file's modification time); ``given`` -- the logs of a
report in the order given, after the history's earlier runs. Never the time a report was built."""

RULE_SETTINGS = "settings"
RULE_MTIME = "file time"
RULE_GIVEN = "order given"
RULES = {RULE_SETTINGS: "started_at in the log's .settings.json (written by rag-metrics run)",
         RULE_MTIME: "the log file's modification time (the log has no .settings.json)",
         RULE_GIVEN: "the order the logs were given (--order given), after the history's earlier runs"}


def _utc(moment: _dt.datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run_made_at(log) -> tuple[str | None, str | None]:
    """When a log's run was made and by which rule (:data:`RULES`): ``(UTC ISO time, rule)``, ``(None, None)`` when
    neither the log's settings nor its file tell."""
    started = (getattr(log, "settings", None) or {}).get("started_at")
    if isinstance(started, str) and started.strip():
        try:
            return _utc(_dt.datetime.fromisoformat(started.strip())), RULE_SETTINGS
        except ValueError:
            pass  # not a time: fall back to the file
    source = getattr(log, "source", None)
    if source and Path(source).is_file():
        return _utc(_dt.datetime.fromtimestamp(Path(source).stat().st_mtime, tz=_dt.timezone.utc)), RULE_MTIME
    return None, None


def order_logs(logs, order: str = "made") -> list[dict]:
    """The logs in the order their runs were made (``order="made"``) or as given (``"given"``).

    Returns one dict per log, oldest first: ``log``, ``position`` (in ``logs``), ``made_at`` and ``rule`` (how
    the time was told, :data:`RULES`; None when it cannot be) and ``ordered_by`` (the rule that placed it: ``rule``,
    or ``order given``). With ``made``, ties keep the given order, and a log whose time cannot be told (no settings,
    no file) is an error that names it.
    """
    check_choice(order, RUN_ORDERS, "order", what="unknown run", field="order")
    rows = []
    for i, log in enumerate(logs):
        made_at, rule = run_made_at(log)
        if order == "made" and made_at is None:
            raise InputError("cannot tell when this log's run was made: it has no .settings.json with started_at "
                             "and is not a file; give the logs in the order they were made with --order given.",
                             path=getattr(log, "source", None))
        rows.append({"log": log, "position": i, "made_at": made_at, "rule": rule,
                     "ordered_by": RULE_GIVEN if order == "given" else rule})
    if order == "made":
        rows.sort(key=lambda r: (r["made_at"], r["position"]))
    return rows


def _log_depth(result) -> int:
    """Most items the log holds for one question (0 when it holds none)."""
    counts = result.log.run.groupby("question_id", sort=False).size() if len(result.log.run) else []
    return int(max(counts, default=0))


def save_experiment(result, history_dir, *, made_at: str | None = None, rule: str | None = None,
                    n_resamples: int = N_RESAMPLES, now=None) -> tuple[Path, str]:
    """Save an :class:`~rag_metrics.experiment.evaluate.ExperimentResult` (its primary judge's evaluation) once.

    The same log judged the same way against the same golden set is saved once: returns ``(path, "saved")`` or
    ``(path of the record already there, "already in the history as <id>")``. The record's ``config`` holds what a
    configuration diff shows
    (:func:`config_diff`): the log, when its run was made and by which rule (``made_at``/``made_rule``; default
    :func:`run_made_at`), the retriever, its options and chunking, the k it was run with, the depth the log holds,
    the golden-set fingerprint, the judge, the ks evaluated and the software; ``intervals`` holds each headline
    measure's mean and 95% interval, computed here once (:func:`~rag_metrics.experiment.verdict.run_interval`).
    The check and the save happen under a lock on the folder, so concurrent reports save each run once.
    """
    fp_golden, judge = result.golden.fingerprint(), result.judges[result.primary]
    probe = {"golden": digest(fp_golden), "judge": digest(judge.params())}
    folder = Path(history_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / LOCK_NAME):  # the check and the save, one process at a time
        for path in sorted(folder.glob("*.json")):
            try:
                rec = read_record(path)
            except InputError:
                continue  # named by experiment_history's HistoryWarning
            if _same_run(rec, result.settings["log_fingerprint"], probe):
                return path, f"already in the history as {rec['id']}"
        return _save_experiment(result, folder, fp_golden, judge, made_at, rule, n_resamples, now), "saved"


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
                rec = read_record(p)
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


def _save_experiment(result, history_dir, fp_golden, judge, made_at, rule, n_resamples, now) -> Path:
    import rag_metrics

    from rag_metrics.experiment.verdict import run_interval

    if made_at is None:
        made_at, rule = run_made_at(result.log)
    rs = result.settings.get("run_settings") or {}
    options = rs.get("options") if isinstance(rs.get("options"), dict) else None
    read = result.settings.get("read") or {}
    config = {"log": result.settings["log"], "log_fingerprint": result.settings["log_fingerprint"],
              "made_at": made_at, "made_rule": rule, "run_time": made_at, "ks": result.settings["ks"],
              "retriever": rs.get("retriever"), "options": {k: v for k, v in (options or {}).items() if k != "chunking"},
              "chunking": (options or {}).get("chunking"), "k": rs.get("k"), "depth": _log_depth(result),
              "corpus": rs.get("corpus"), "golden": fp_golden, "judge": judge.params(),
              "software": rs.get("software") or rs.get("version"),
              "evaluated_by": f"rag_metrics {rag_metrics.__version__}", "preset": read.get("preset"),
              "not_logged": sorted(map(str, result.missing_questions))}
    per_question = result.evaluation.per_question
    intervals = {m: run_interval(per_question[m], n_resamples=n_resamples) for m in result.headline_measures
                 if m in per_question}
    path = save_run(result.evaluation, history_dir, name=safe_name(result.name), golden=fp_golden,
                    corpus=result.settings.get("corpus"), judge=judge, config=config, now=now)
    rec = json.loads(path.read_text(encoding="utf-8"))
    rec["intervals"] = intervals
    atomic_write_text(path, json.dumps(rec, ensure_ascii=False, indent=1, default=str))
    return path


def _records(history_dir) -> list[dict]:
    return _readable_records(history_dir)


def made_at(record: dict) -> str:
    """When a saved run was made (its config's ``made_at``; older records: ``run_time``, else the save time)."""
    config = record.get("config", {})
    return config.get("made_at") or config.get("run_time") or record["timestamp"]


def experiment_history(history_dir, *, given: list | None = None) -> list[dict]:
    """The saved runs of an experiment, oldest first by the time each run was made (:func:`made_at`).

    ``given``: record IDs of a report's logs in the order given (``--order given``): those come last, in that
    order, after the history's other runs.
    """
    records = _records(history_dir)
    position = {rid: i for i, rid in enumerate(given or [])}
    return sorted(records, key=lambda r: (r["id"] in position, position.get(r["id"], 0), made_at(r), r["id"]))


def comparable(a: dict, b: dict) -> bool:
    """Two saved runs measure the same thing: same golden set and same judge (:data:`REFUSE_ON`)."""
    return all(a["fingerprint"].get(k) == b["fingerprint"].get(k) for k in REFUSE_ON)


def run_key(record: dict) -> str:
    """What identifies a saved run across histories and report builds: the digest of its log's fingerprint, its
    golden set and its judge (a record's ``id`` also holds the time it was saved)."""
    return digest({"log": record.get("config", {}).get("log_fingerprint") or record["id"],
                   "golden": record["fingerprint"].get("golden"), "judge": record["fingerprint"].get("judge")})


def logged(record: dict) -> list:
    """The questions a saved run's log held: its per-question values less the golden questions its log did not
    hold (``config.not_logged``; a record saved before it was kept counts every question as logged)."""
    missing = set((record.get("config") or {}).get("not_logged") or ())
    return [q for q in record["per_query"] if q not in missing]


def per_question(record: dict, measure: str) -> pd.Series:
    """A saved run's per-question values of ``measure`` (NaN = undefined), indexed by question ID."""
    return pd.Series({q: v.get(measure) for q, v in record["per_query"].items()}, dtype=float, name=record["name"])


def previous_comparable(records: list[dict], subject_id: str, measure: str | None = None) -> dict | None:
    """The newest run made before ``subject_id`` that is comparable with it (and holds ``measure``), else None."""
    ids = [r["id"] for r in records]
    if subject_id not in ids:
        raise InputError(f"run {subject_id!r} is not in this history.")
    i = ids.index(subject_id)
    subject = records[i]
    for rec in reversed(records[:i]):
        if comparable(rec, subject) and (measure is None or measure in rec["summary"]):
            return rec
    return None


def interval(record: dict, measure: str, *, n_resamples: int = N_RESAMPLES) -> dict:
    """A saved run's mean of ``measure`` with its 95% interval: stored with the run, else computed now."""
    stored = (record.get("intervals") or {}).get(measure)
    if stored is not None:
        return stored
    from rag_metrics.experiment.verdict import run_interval

    return run_interval(per_question(record, measure), n_resamples=n_resamples)


def history_table(records: list[dict], measures, *, subject_id: str | None = None, baseline_id: str | None = None,
                  n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
    """One row per saved run, oldest first: ``run``, ``made at``, ``ordered by`` (the rule), ``n`` and each
    measure's mean with its 95% interval (``<m>``, ``<m> low``, ``<m> high``; stored with the run, computed
    once), ``comparable`` (same golden set and judge as the subject, default the newest run) and ``role``
    (``subject`` / ``baseline`` / empty)."""
    if not records:
        return pd.DataFrame(columns=["run", "made at", "ordered by", "n", "comparable", "role"])
    subject = next((r for r in records if r["id"] == subject_id), records[-1])
    rows = []
    for rec in records:
        row = {"id": rec["id"], "run": rec["name"], "made at": made_at(rec),
               "ordered by": rec.get("config", {}).get("made_rule") or "save time", "n": None}
        for m in measures:
            if m in rec["summary"]:
                iv = interval(rec, m, n_resamples=n_resamples)
                row |= {m: iv["mean"], f"{m} low": iv["low"], f"{m} high": iv["high"]}
                row["n"] = row["n"] if row["n"] is not None else iv["n"]
        row["comparable"] = comparable(rec, subject)
        row["role"] = "subject" if rec["id"] == subject["id"] else ("baseline" if rec["id"] == baseline_id else "")
        rows.append(row)
    return pd.DataFrame(rows)


CONFIG_ROWS = (
    ("retriever", "retriever"), ("options", "options"), ("chunking", "chunking"), ("corpus", "corpus"),
    ("k (retrieved per question)", "k"), ("logged depth (most items for a question)", "depth"),
    ("golden set (fingerprint)", "golden"), ("judge", "judge"), ("ks evaluated", "ks"), ("log preset", "preset"),
    ("software", "software"), ("evaluated by", "evaluated_by"),
)
"""The settings a configuration diff shows (label, key of the record's ``config``). When each run was made is in
the runs' list, not here: two runs always differ in it."""


def _show_config(value) -> str:
    if value is None or value == {} or value == "":
        return "not recorded"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_show_config(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def config_diff(before: dict, after: dict) -> pd.DataFrame:
    """What differs between two saved runs' configurations: one row per setting (:data:`CONFIG_ROWS`) with each
    run's value as text (``not recorded`` when the run did not record it) and ``differs``."""
    rows = []
    for label, key in CONFIG_ROWS:
        a = _show_config(before.get("config", {}).get(key))
        b = _show_config(after.get("config", {}).get(key))
        if key == "judge":  # older records keep the judge beside the config
            a = a if a != "not recorded" else _show_config(before.get("judge"))
            b = b if b != "not recorded" else _show_config(after.get("judge"))
        rows.append({"setting": label, "before": a, "after": b, "differs": a != b})
    return pd.DataFrame(rows).set_index("setting")


def partial(record: dict) -> bool:
    """Whether a saved run's log held only a minority of the golden set's questions (:func:`logged`): its mean
    then speaks of the questions it did not log as misses, and a trend would read it as a collapse."""
    return 2 * len(logged(record)) < len(record["per_query"])


def trend(records: list[dict], measure: str, *, n_resamples: int = N_RESAMPLES, partial_runs: bool = False) -> list[dict]:
    """The runs comparable with the newest one (same golden set and judge) that hold ``measure``, oldest first:
    ``id`` (:func:`run_key`), ``run``, ``made_at``, ``mean``, ``low``, ``high``, ``n`` (the index's small trend).
    A run whose log held a minority of the questions (:func:`partial`) is left out unless ``partial_runs``."""
    if not records:
        return []
    newest = records[-1]
    out = []
    for rec in records:
        if partial(rec) and not partial_runs:
            continue
        if comparable(rec, newest) and measure in rec["summary"]:
            iv = interval(rec, measure, n_resamples=n_resamples)
            out.append({"id": run_key(rec), "run": rec["name"], "made_at": made_at(rec), "mean": iv["mean"],
                        "low": iv["low"], "high": iv["high"], "n": iv["n"]})
    return out


def log_profile(result) -> dict:
    """What a log shows about the run that wrote it, as text (its preset and depth are rows of the configuration
    already): items per question (mean), the median text length in characters, the distinct documents and pages retrieved,
    the score range (``-`` where the log holds no texts or scores)."""
    run = result.run
    texts = run["text"].map(lambda t: len(t) if isinstance(t, str) else None).dropna() if "text" in run else []
    scores = run["score"].dropna() if "score" in run else []
    per_question = run.groupby("question_id", sort=False).size() if len(run) else pd.Series(dtype=float)
    pages = {(d, p) for d, ps in zip(run["doc_id"], run["pages"]) if isinstance(d, str)
             for p in (ps if isinstance(ps, (tuple, list)) else ())}
    return {"items per question": f"{per_question.mean():.1f}" if len(per_question) else "-",
            "median text length, characters": f"{pd.Series(texts).median():.0f}" if len(texts) else "-",
            "distinct documents": str(run["doc_id"].dropna().nunique()),
            "distinct pages": str(len(pages)),
            "score range": f"{scores.min():.3f} to {scores.max():.3f}" if len(scores) else "-"}
