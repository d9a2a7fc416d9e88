"""`rag-metrics compare`: several TREC runs against the first (:func:`rag_metrics.experiment.compare.compare_runs`)."""

from __future__ import annotations

import json
import sys

from rag_metrics.cli import options


def add(sub) -> None:
    from rag_metrics.stats.intervals import N_RESAMPLES

    tests = (f"the exact sign test for 0/1 measures such as hit@k; otherwise the bounded-mean test, which allows for "
             f"a change as large as the measure permits, estimated from {N_RESAMPLES:,} weight draws")
    cp = sub.add_parser("compare", help="compare runs against the first (paired test, interval, Holm)",
                        description="One row per run and measure; against the first run (the baseline): the paired "
                                    f"difference, the paired test's p-value ({tests}) and the 95% interval of the "
                                    "same test, wins/ties/losses, the Holm-adjusted p-value across the runs and the "
                                    "verdict (better / worse / within noise).")
    cp.add_argument("qrels", help="qrels: TREC, BEIR TSV or JSON dict (plain or gzip)")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="runs, the baseline first")
    options.measures(cp)
    options.output_format(cp, trec="trec_eval's layout and names, the run in the question column")
    options.relevance(cp)
    options.file_formats(cp)


def run(args) -> int:
    from rag_metrics.experiment.compare import compare_runs

    result = compare_runs(args.qrels, args.runs, args.measures, min_rel=args.min_rel, gain=args.gain,
                          order_by=args.order_by, qrels_format=args.qrels_format, run_format=args.run_format)
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    elif args.format == "csv":
        sys.stdout.write(result.to_csv())
    elif args.format == "trec":
        sys.stdout.write(result.to_trec())
    else:
        print(result.to_text())
        print(f"\nbaseline: {next(iter(result.evaluations))}; delta = run - baseline, paired over the questions "
              "both define; p: the paired test (exact sign test for 0/1 measures, bounded-mean test otherwise); 95% "
              "interval of the same test; verdict from Holm across the runs")
    return 0
