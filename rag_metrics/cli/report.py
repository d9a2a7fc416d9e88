"""`rag-metrics report`: an experiment report from retrieval logs, or the notebooks as HTML
(:mod:`rag_metrics.report.build`)."""

from __future__ import annotations

import sys

from rag_metrics.cli import options
from rag_metrics.core.files import Output


def add(sub) -> None:
    from rag_metrics.experiment.history import RUN_ORDERS

    rp = sub.add_parser("report", help="write HTML reports: an experiment report from retrieval logs, or notebooks",
                        description="With --run: the experiment report of your system (golden set, logs, pages). "
                                    "Without: run the notebooks through papermill.")
    rp.add_argument("--experiment", default="default", help="experiment name: reports/NAME/<UTC timestamp>/")
    rp.add_argument("--golden", metavar="FILE", help="golden set (JSON lines or CSV); with --run")
    rp.add_argument("--run", action="append", default=[], metavar="[PRESET[(FIELD=PATH,...)]:]LOG",
                    help="retrieval log (repeatable, in any order: runs are ordered by when they were made, see "
                         "--order); turns on the experiment report. PRESET:LOG reads that log with its own preset "
                         "(e.g. langchain:lc.jsonl), PRESET(doc_id=meta.src,page_base=0):LOG with its own mapping; "
                         "logs without one use --preset/--field/--page-base")
    rp.add_argument("--pages", metavar="PATH", help="the documents: pages.jsonl or a folder (judges logged text)")
    rp.add_argument("--answers", metavar="FILE", help="logged answers (question_id, generated_answer) when the "
                                                      "logs have none")
    rp.add_argument("--generator", metavar="NAME", help="with --answers holding several generators: which one")
    options.log_shape(rp)
    options.ruler(rp, judge_help="judge of the headline (default: the first of overlap, page, marker, document that "
                                  "applies)")
    options.verdict(rp)
    rp.add_argument("--order", choices=RUN_ORDERS, default="made",
                    help="order of the runs: made (default: when each run was made -- the log's .settings.json "
                         "started_at, else the file's modification time) or given (the order of --run)")
    rp.add_argument("--drilldowns", type=int, default=20, metavar="N",
                    help="questions shown item by item (default 20: the moved ones first, then misses); a table "
                         "lists the rest")
    rp.add_argument("-p", "--parameter", action="append", default=[], metavar="KEY=VALUE",
                    help="notebook parameter (repeatable); VALUE typed as in help(rag_metrics.core.options): 5, 0.5, "
                         "true, none, [1, 3], else text")
    rp.add_argument("--notebook", action="append", default=[], metavar="PATH",
                    help="notebook to run (repeatable); default: every notebooks/*.ipynb")
    rp.add_argument("--notebooks-dir", default="notebooks")
    rp.add_argument("--reports-dir", default="reports")
    rp.add_argument("--jobs", type=int, metavar="N", help="notebooks run at once (default: one per CPU core)")
    options.files(rp, reads=("--golden", "--run", "--pages", "--answers", "--notebook", "--notebooks-dir"),
                  writes=(Output("--reports-dir", None, folder=True, files=("index.html",)),))


def run(args) -> int:
    from rag_metrics.report.experiment_build import build_experiment_report, check_notebook_options
    from rag_metrics.report.build import ReportError, build_report, parse_parameters

    try:
        if args.run:
            run = build_experiment_report(
                args.experiment, golden=args.golden, runs=args.run, pages=args.pages, answers=args.answers,
                generator=args.generator, preset=args.preset, fields=args.field, page_base=args.page_base,
                ks=args.ks or [1, 3, 5], min_chars=args.min_chars, window=args.window, judge=args.judge,
                measure=args.measure, order=args.order, alpha=args.alpha, drilldowns=args.drilldowns,
                reports_dir=args.reports_dir)
        else:
            check_notebook_options(vars(args))
            run = build_report(experiment=args.experiment, parameters=parse_parameters(args.parameter),
                               notebooks=args.notebook or None, notebooks_dir=args.notebooks_dir,
                               reports_dir=args.reports_dir, jobs=args.jobs)
    except ReportError as e:
        print(f"rag-metrics report: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {run}")
    return 0
