"""The ``rag-metrics`` command line: ``evaluate`` (TREC files) and ``report`` (notebooks -> HTML)."""

from __future__ import annotations

import argparse
import json
import sys

from .errors import ORDERS, InputError

EPILOG_EVALUATE = """\
measures: recall@k, precision@k (P@k), hit@k (success@k), mrr, mrr@k, ndcg, ndcg@k, map, map@k.
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
        epilog=EPILOG_EVALUATE,
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


def _format_table(result) -> str:
    rows = [("measure", "mean", "evaluated", "excluded")]
    for m, row in result.summary.iterrows():
        mean = "-" if row["mean"] != row["mean"] else f"{row['mean']:.4f}"
        rows.append((m, mean, str(row["evaluated"]), str(row["excluded"])))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def _format_per_query(result) -> str:
    table = result.per_question[result.measures]
    lines = ["\t".join(["question_id", *result.measures])]
    for q, row in table.iterrows():
        lines.append("\t".join([str(q), *("-" if v != v else f"{v:.4f}" for v in row)]))
    return "\n".join(lines)


def cmd_evaluate(args) -> int:
    from .evaluate import evaluate
    from .measures import parse_measures
    from .trec import read_doc_map, read_qrels, read_run

    measures = parse_measures(args.measures) if args.measures else None
    if args.unit == "document" and not args.doc_map:
        raise InputError("--unit document needs --doc-map FILE (chunk_id<TAB>doc_id).")
    qrels = read_qrels(args.qrels)
    run = read_run(args.run, order_by=args.order_by)
    if args.unit == "document":
        doc_map = read_doc_map(args.doc_map)
        unknown = ~run["doc_id"].isin(doc_map.keys())
        if unknown.any():
            row = run[unknown].iloc[0]
            raise InputError(
                f"unknown chunk ID {row['doc_id']!r} (question {row['question_id']!r}): it is not in {args.doc_map}.",
                path=args.run,
                line=int(row["line"]),
            )
        result = evaluate(qrels, run.rename(columns={"doc_id": "chunk_id"}), measures, level="document",
                          doc_map=doc_map, order=args.order, min_rel=args.min_rel, gain=args.gain)
    else:
        result = evaluate(qrels.rename(columns={"doc_id": "chunk_id"}), run.rename(columns={"doc_id": "chunk_id"}),
                          measures, level="chunk", min_rel=args.min_rel, gain=args.gain)
    if args.format == "json":
        out = result.to_dict(per_query=args.per_query)
        out["unknown_questions"] = list(result.unknown_questions)
        out["settings"] = {**result.settings, "unit": args.unit, "order_by": args.order_by}
        print(json.dumps(out, indent=2))
    else:
        print(_format_table(result))
        if result.unknown_questions:
            ids = ", ".join(result.unknown_questions[:10]) + (" ..." if len(result.unknown_questions) > 10 else "")
            print(f"\n{len(result.unknown_questions)} question(s) in the run but not in the qrels, not used: {ids}")
        if args.per_query:
            print()
            print(_format_per_query(result))
    return 0


def cmd_report(args) -> int:
    from .report import ReportError, build_report, parse_parameters

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
    from .history import diff, list_runs, load_run

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


def main(argv=None) -> int:
    from .fingerprint import NotComparableError

    args = _parser().parse_args(argv)
    try:
        if args.command == "evaluate":
            return cmd_evaluate(args)
        if args.command == "history":
            return cmd_history(args)
        return cmd_report(args)
    except (InputError, ValueError, NotComparableError, FileNotFoundError) as e:
        print(f"rag-metrics {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
