"""`rag-metrics gate`: a run against a baseline -> an exit status for CI (:mod:`rag_metrics.experiment.gate`)."""

from __future__ import annotations

from rag_metrics.cli import options
from rag_metrics.core.files import Output


def add(sub) -> None:
    gt = sub.add_parser("gate", help="fail a CI job when a run is significantly worse than a baseline",
                        description="Compares a run with a baseline on one golden set and one ruler: the paired "
                                    "test on one measure (the exact sign test for 0/1 measures such as hit@k, the "
                                    "bounded-mean test otherwise). Exit 1 when the run is worse and the drop "
                                    "is significant at --alpha, or (with --max-drop) when the mean fell by more than "
                                    "the tolerance; 0 otherwise; 2 on bad input (nothing written). Each side is a "
                                    "retrieval log, a TREC run file or a history record (a file, or an ID with "
                                    "--history-dir). help(rag_metrics.experiment.gate)")
    gt.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    gt.add_argument("--baseline", required=True, metavar="BASE", help="the baseline: a log (PRESET:LOG for a log "
                                                                      "with its own shape), a TREC run or a history "
                                                                      "record")
    gt.add_argument("--run", required=True, metavar="NEW", help="the run to gate: a log (PRESET:LOG for a log with "
                                                                "its own shape), a TREC run or a history record")
    gt.add_argument("--pages", metavar="PATH", help="the documents: pages.jsonl or a folder (judges logged text)")
    gt.add_argument("--history-dir", metavar="DIR", help="history folder where BASE or NEW may be a run ID or name "
                                                         "(e.g. reports/EXPERIMENT/history)")
    options.log_shape(gt)
    options.ruler(gt, judge_help="the ruler (default: the first of overlap, page, marker, document that applies to "
                                 "both)")
    options.verdict(gt)
    gt.add_argument("--max-drop", type=float, metavar="X",
                    help="also fail when the mean falls by more than X, significant or not (e.g. 0.02)")
    gt.add_argument("--markdown", metavar="FILE", help="append a Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    gt.add_argument("--junit", metavar="FILE", help="write JUnit XML to FILE (a CI test report)")
    gt.add_argument("--report-link", metavar="URL", help="link the Markdown summary to the experiment report at URL "
                    "(an http(s) URL or a relative path)")
    options.files(gt, reads=("--golden", "--baseline", "--run", "--pages", "--history-dir"),
                  writes=(Output("--markdown", None), Output("--junit", None)))


def run(args) -> int:
    from rag_metrics.core.files import write_summaries
    from rag_metrics.experiment.gate import compare_for_gate, gate_settings, read_side
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.log_presets import parse_field_mapping

    ks = gate_settings(args.ks, alpha=args.alpha, max_drop=args.max_drop)
    mapping = parse_field_mapping(args.field)
    corpus = load_corpus(args.pages) if args.pages else None
    golden = load_golden(args.golden, corpus=corpus)
    read = dict(history_dir=args.history_dir, preset=args.preset, fields=mapping, page_base=args.page_base)
    baseline, new = read_side(args.baseline, **read), read_side(args.run, **read)
    result = compare_for_gate(golden, baseline, new, corpus, ks=ks, min_chars=args.min_chars, window=args.window,
                              judge=args.judge, measure=args.measure, alpha=args.alpha, max_drop=args.max_drop)
    summary = result.markdown(report=args.report_link) if args.markdown else None  # a bad link refused first
    write_summaries(markdown=(args.markdown, summary), junit=(args.junit, result.junit() if args.junit else None))
    print(result.text())
    return result.decision.exit_code
