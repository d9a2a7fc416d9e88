"""The ``rag-metrics`` command line: a thin shell over the package.

``evaluate`` (TREC files, :func:`rag_metrics.evaluate_trec`), ``history`` (saved runs) and ``report``
(notebooks -> HTML). Bad input (:class:`~rag_metrics.InputError`) exits with status 2 and one line
naming the file, line and what was expected; any other exception is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .errors import ORDERS, InputError

def _epilog_evaluate() -> str:
    from .measures.registry import REGISTRY

    names = ", ".join(spec.display() for spec in REGISTRY.values())
    return f"""\
measures: {names}
  (also: {", ".join(a for spec in REGISTRY.values() for a in spec.aliases)}; case-insensitive)
ordering: by score descending, ties by document ID descending (as trec_eval); --order-by rank
uses the file's rank column instead. Undefined values (a question with no relevant document)
print as null / '-' and are left out of the mean; the 'excluded' column counts them.

example: rag-metrics evaluate qrels.txt run.txt -m recall@5 -m ndcg@10 --format json --per-query
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rag-metrics", description="Exact retrieval metrics for RAG evaluation.")
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser(
        "evaluate",
        help="evaluate a TREC run against TREC qrels",
        epilog=_epilog_evaluate(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", help="TREC qrels file: qid iter docid rel")
    ev.add_argument("run", help="TREC run file: qid Q0 docid rank score tag")
    ev.add_argument("-m", "--measure", action="append", dest="measures", metavar="NAME",
                    help="measure to compute (repeatable); default: recall@5 precision@5 hit@5 mrr ndcg@10 map")
    ev.add_argument("--format", choices=("table", "json"), default="table")
    ev.add_argument("--per-query", action="store_true", help="also print one value per question")
    ev.add_argument("--doc-map", metavar="FILE", help="TSV chunk_id<TAB>doc_id mapping the run's IDs to documents")
    ev.add_argument("--unit", choices=("chunk", "document"), default="chunk",
                    help="chunk: the run's IDs are judged as they are (default); "
                         "document: map them with --doc-map and collapse with --order")
    ev.add_argument("--order", choices=ORDERS, default="cut_then_dedup", help="collapsing order at document level")
    ev.add_argument("--min-rel", type=float, default=1, metavar="N", help="lowest label counted as relevant (default 1)")
    ev.add_argument("--gain", choices=("linear", "exponential"), default="linear", help="nDCG gain (default linear)")
    ev.add_argument("--order-by", choices=("score", "rank"), default="score",
                    help="rank results by score like trec_eval (default) or by the rank column")
    ev.add_argument("--engine", choices=("auto", "fast", "general", "dask"), default="auto",
                    help="auto: the fast columnar path when the files allow it, else the general path (same numbers); "
                         "fast: require the fast path; general: the line-validating reader; "
                         "dask: evaluate on a Dask cluster (RUN may be a glob of many files; --scheduler ADDRESS)")
    ev.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: a local cluster)")

    hp = sub.add_parser("history", help="list, show and diff saved evaluation runs")
    hp.add_argument("--dir", default="history", help="history folder (default: history/)")
    hsub = hp.add_subparsers(dest="action", required=True)
    hsub.add_parser("list", help="one line per saved run")
    show = hsub.add_parser("show", help="the summary of one run")
    show.add_argument("run", help="run id, id prefix, name, or path")
    hd = hsub.add_parser("diff", help="per-measure deltas and per-question flips between two runs")
    hd.add_argument("previous")
    hd.add_argument("current")
    hd.add_argument("--force", action="store_true", help="compare even if the golden set or judge differ")

    rp = sub.add_parser("report", help="run notebooks through papermill and write HTML reports")
    rp.add_argument("--experiment", default="default", help="experiment name: reports/NAME/<UTC timestamp>/")
    rp.add_argument("-p", "--parameter", action="append", default=[], metavar="KEY=VALUE",
                    help="notebook parameter (repeatable); VALUE is parsed as YAML/JSON when possible")
    rp.add_argument("--notebook", action="append", default=[], metavar="PATH",
                    help="notebook to run (repeatable); default: every notebooks/*.ipynb")
    rp.add_argument("--notebooks-dir", default="notebooks")
    rp.add_argument("--reports-dir", default="reports")
    return parser


def _format_table(data: dict) -> str:
    rows = [("measure", "mean", "evaluated", "excluded")]
    for m, v in data["summary"].items():
        mean = "-" if v["mean"] is None else f"{v['mean']:.4f}"
        rows.append((m, mean, str(v["evaluated"]), str(v["excluded"])))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def _format_per_query(ev) -> str:
    names = list(ev.values)
    columns = [ev.values[m].tolist() for m in names]
    lines = ["\t".join(["question_id", *names])]
    for i, q in enumerate(ev.questions):
        lines.append("\t".join([str(q), *("-" if c[i] != c[i] else f"{c[i]:.4f}" for c in columns)]))
    return "\n".join(lines)


def cmd_evaluate(args) -> int:
    from .errors import InputError
    from .measures.evaluation import evaluate_trec

    if args.unit == "document" and not args.doc_map:
        raise InputError("--unit document needs --doc-map FILE (chunk_id<TAB>doc_id).")
    if args.unit == "chunk" and args.doc_map:
        raise InputError("--doc-map maps chunks to documents: use it with --unit document.")
    ev = evaluate_trec(args.qrels, args.run, args.measures, min_rel=args.min_rel, gain=args.gain,
                       order_by=args.order_by, doc_map=args.doc_map, order=args.order, engine=args.engine,
                       scheduler=args.scheduler)
    data = ev.to_dict(per_query=args.per_query)
    data["settings"]["unit"] = args.unit
    if args.format == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(_format_table(data))
        if ev.unknown_questions:
            unknown = data["unknown_questions"]
            ids = ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10 else "")
            print(f"\n{len(unknown)} question(s) in the run but not in the qrels, not used: {ids}")
        if args.per_query:
            print()
            print(_format_per_query(ev))
    return 0


def cmd_report(args) -> int:
    from .report.runner import ReportError, build_report, parse_parameters

    try:
        params = parse_parameters(args.parameter)
        run = build_report(
            experiment=args.experiment,
            parameters=params,
            notebooks=args.notebook or None,
            notebooks_dir=args.notebooks_dir,
            reports_dir=args.reports_dir,
        )
    except ReportError as e:
        print(f"rag-metrics report: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {run}")
    return 0


def cmd_history(args) -> int:
    from .analysis.history import diff, list_runs, load_run

    if args.action == "list":
        runs = list_runs(args.dir)
        print(runs.to_string(index=False, float_format=lambda v: f"{v:.4f}") if len(runs) else f"no run saved in {args.dir}/")
    elif args.action == "show":
        rec = load_run(args.run, args.dir)
        print(f"{rec['id']}  ({rec['timestamp']})")
        print("settings:", json.dumps(rec["settings"], ensure_ascii=False))
        print("fingerprint:", json.dumps(rec["fingerprint"]))
        for m, s in rec["summary"].items():
            mean = "-" if s["mean"] is None else f"{s['mean']:.4f}"
            print(f"  {m:<14} {mean:>8}  evaluated {s['evaluated']}, excluded {s['excluded']}")
    else:
        d = diff(args.previous, args.current, force=args.force, history_dir=args.dir)
        print(f"{d.previous} -> {d.current}")
        if d.differs:
            print("fingerprint components that differ:", ", ".join(d.differs))
        print(d.measures.to_string(float_format=lambda v: f"{v:+.4f}" if v < 0 else f"{v:.4f}"))
        for change in ("newly hit", "newly missed", "improved", "worsened"):
            qs = d.newly(change)
            if qs:
                print(f"{change} ({len(qs)}): {', '.join(qs)}")
    return 0


COMMANDS = {"evaluate": cmd_evaluate, "history": cmd_history, "report": cmd_report}


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()
        return code
    except InputError as e:
        print(f"rag-metrics {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped early (`rag-metrics evaluate ... | head`): not an error. Point stdout at
        # devnull so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
