"""The experiment report of a system's retrieval logs (``rag-metrics report --run LOG``): its options checked,
its inputs read once, its notebook (``experiment.ipynb``) run by :func:`rag_metrics.report.build.build_report`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from rag_metrics.core.errors import InputError, check_alpha, check_choice, check_name
from rag_metrics.report.build import build_report

__all__ = ["build_experiment_report", "check_experiment_inputs", "check_notebook_options", "check_run_names",
           "duplicate_logs", "EXPERIMENT_NOTEBOOK", "EXPERIMENT_ONLY"]

EXPERIMENT_ONLY = ("golden", "pages", "answers", "generator", "page_base", "judge", "measure")
"""Options of `rag-metrics report` that mean an experiment report (with ``--run``), never the notebooks."""


def check_notebook_options(given: dict) -> None:
    """Refuse, naming the first, an option of :data:`EXPERIMENT_ONLY` given (not None) to a notebook report."""
    for name in EXPERIMENT_ONLY:
        if given.get(name) is not None:
            raise InputError(f"--{name.replace('_', '-')} belongs to an experiment report: give the logs with --run "
                             "LOG.")


EXPERIMENT_NOTEBOOK = Path(__file__).resolve().parent / "experiment.ipynb"
"""The notebook of the experiment report."""


def duplicate_logs(logs: list) -> list[str]:
    """One sentence per group of logs (``{"source", "fingerprint"}``) that hold the same retrieved items: the history
    keeps one run of them, so the report cannot compare them with each other."""
    groups: dict = {}
    for log in logs:
        groups.setdefault(log["fingerprint"], []).append(str(log["source"]))
    return [f"{' and '.join(sources)} hold identical retrieved items (one run logged {len(sources)} times): the "
            "history keeps them as one run, so the report does not compare them with each other."
            for sources in groups.values() if len(sources) > 1]


def build_experiment_report(experiment: str, *, golden, runs, pages=None, answers=None, generator=None,
                            preset: str = "native", fields=(), page_base=None, ks=(1, 3, 5), min_chars: int = 24,
                            window: int = 1, judge: str | None = None, measure: str | None = None,
                            order: str = "made", alpha: float = 0.05, drilldowns: int = 20, reports_dir="reports",
                            now=None, progress_bar: bool = True) -> Path:
    """The experiment report of a system's retrieval logs (``rag-metrics report --run LOG``).

    Every input is read and validated first (:func:`rag_metrics.report.report_inputs.read_inputs`, the checks of
    :func:`check_experiment_inputs`) -- golden set, pages, each log matched to them, the headline judge, answers -- so
    that bad input is an :class:`~rag_metrics.InputError` naming its file, line and field, and nothing is written.
    ``runs`` may carry their own shapes (``langchain:LOG``, :func:`rag_metrics.io.logs.parse_run_spec`);
    ``preset``/``fields``/``page_base`` apply to the others. The validated objects are handed to ``experiment.ipynb``
    (a private cache file, removed afterwards) so the notebook does not read them again; the reading happens in a
    child process (:func:`rag_metrics.report.report_inputs.hand_over`), so this process never holds them while the
    kernel does. The notebook runs through papermill into ``reports_dir/experiment/<UTC timestamp>/``; each log's
    evaluation joins the experiment's history (``reports_dir/experiment/history/``) once the report is published. The
    runs are ordered by when they were made (``order="made"``: the log's settings, else the file's modification time) or
    as given (``order="given"``); the newest is the report's subject, compared on ``measure`` with the previous
    comparable run at level ``alpha``; at most ``drilldowns`` questions are shown item by item. On the terminal
    (stderr) it says when most of a log's questions are not in the golden set, and how the runs were ordered.
    """
    from rag_metrics.io.logs import parse_run_spec
    from rag_metrics.report.report_inputs import hand_over

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
                            progress_bar=progress_bar, hide_input=True, history_dir=history,
                            folder_parameter="output_dir")
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
    :func:`rag_metrics.report.report_inputs.read_inputs`, the reading the report itself uses.
    """
    from rag_metrics.io.logs import parse_run_spec
    from rag_metrics.report.report_inputs import read_inputs

    mapping, ks = _check_options(experiment, golden=golden, runs=runs, preset=preset, fields=fields,
                                 page_base=page_base, ks=ks, min_chars=min_chars, window=window, judge=judge)
    read_inputs(golden=golden, runs=runs, pages=pages, answers=answers, generator=generator, preset=preset,
                fields=mapping, page_base=page_base, judge=judge)
    return [parse_run_spec(r) for r in runs], mapping, ks

