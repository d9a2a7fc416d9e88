"""The ``rag-metrics`` command line: ``evaluate`` (TREC files) and ``report`` (notebooks -> HTML)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

import numpy as np

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
    ev.add_argument("--engine", choices=("auto", "general", "dask"), default="auto",
                    help="auto: the fast columnar path when the files allow it, else the general path; "
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


@dataclass
class _Output:
    """What the command prints, built from either path without pandas: questions, measure -> values."""

    questions: list
    values: dict
    unknown: list
    settings: dict

    def summary(self):
        out = {}
        for m, v in self.values.items():
            defined = ~np.isnan(v)
            out[m] = {"mean": float(v[defined].mean()) if defined.any() else None,
                      "evaluated": int(defined.sum()), "excluded": int((~defined).sum())}
        return out


def _format_table(out: _Output) -> str:
    rows = [("measure", "mean", "evaluated", "excluded")]
    for m, s in out.summary().items():
        mean = "-" if s["mean"] is None else f"{s['mean']:.4f}"
        rows.append((m, mean, str(s["evaluated"]), str(s["excluded"])))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def _format_per_query(out: _Output) -> str:
    names = list(out.values)
    lines = ["\t".join(["question_id", *names])]
    for i, q in enumerate(out.questions):
        lines.append("\t".join([str(q), *("-" if out.values[m][i] != out.values[m][i] else f"{out.values[m][i]:.4f}" for m in names)]))
    return "\n".join(lines)


def _general(args, measures) -> _Output:
    from .evaluation import evaluate
    from .trec import read_doc_map, read_qrels, read_run

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
    values = {m: result.per_question[m].to_numpy(dtype=float) for m in result.measures}
    return _Output(list(result.per_question.index), values, list(result.unknown_questions), dict(result.settings))


def cmd_evaluate(args) -> int:
    from .measures import DEFAULT_MEASURES, parse_measures

    measures = parse_measures(args.measures) if args.measures else DEFAULT_MEASURES
    if args.unit == "document" and not args.doc_map:
        raise InputError("--unit document needs --doc-map FILE (chunk_id<TAB>doc_id).")
    out = None
    if args.engine == "dask":
        from .distributed import evaluate_trec_dask

        if args.unit != "chunk" or args.order_by != "score":
            raise InputError("--engine dask evaluates IDs as they are, ordered by score.")
        questions, values, unknown = evaluate_trec_dask(args.qrels, args.run, measures, min_rel=args.min_rel,
                                                        gain=args.gain, scheduler=args.scheduler)
        out = _Output(questions, values, unknown, {"level": "chunk", "engine": "dask"})
    elif args.engine == "auto" and args.unit == "chunk" and args.order_by == "score":
        from .errors import check_gain, check_min_rel
        from .fast import FastPathUnavailable, evaluate_trec_fast

        try:
            fast = evaluate_trec_fast(args.qrels, args.run, measures, min_rel=check_min_rel(args.min_rel),
                                      gain=check_gain(args.gain))
            values = {str(m): fast.values[str(m)] for m in measures}
            out = _Output(fast.questions, values, fast.unknown_questions,
                          {"level": "chunk", "min_rel": float(args.min_rel), "gain": args.gain,
                           "engine": "fast" if fast.path == "fast" else "fast/small"})
        except FastPathUnavailable:
            out = None  # the general path gives the same numbers, or names the faulty line
        except FileNotFoundError:
            out = None
    if out is None:
        out = _general(args, measures)
        out.settings["engine"] = "general"
    if args.format == "json":
        data = {"summary": out.summary()}
        if args.per_query:
            data["per_query"] = {str(q): {m: (None if out.values[m][i] != out.values[m][i] else float(out.values[m][i]))
                                          for m in out.values} for i, q in enumerate(out.questions)}
        data["unknown_questions"] = [str(q) for q in out.unknown]
        data["settings"] = {**out.settings, "measures": list(out.values), "unit": args.unit, "order_by": args.order_by}
        print(json.dumps(data, indent=2))
    else:
        print(_format_table(out))
        if out.unknown:
            ids = ", ".join(map(str, out.unknown[:10])) + (" ..." if len(out.unknown) > 10 else "")
            print(f"\n{len(out.unknown)} question(s) in the run but not in the qrels, not used: {ids}")
        if args.per_query:
            print()
            print(_format_per_query(out))
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
    from .errors import NotComparableError

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
