"""`rag-metrics run`: a retriever over a golden set -> a log (:mod:`rag_metrics.retrieval.run_retriever`)."""

from __future__ import annotations

import sys

from rag_metrics.cli import options
from rag_metrics.core.files import Output


def add(sub) -> None:
    rn = sub.add_parser("run", help="run a retriever over a golden set and log what it returns",
                        description="Calls search(question, k) for every labelled question (a thread pool, retries "
                                    "with backoff); a question that still fails is logged with its error. An "
                                    "interrupted run resumes when started again with the same settings. Writes "
                                    "OUT (JSON lines) and OUT.settings.json.")
    rn.add_argument("--retriever", required=True, metavar="NAME|MODULE:FUNCTION",
                    help="bm25, dense or hybrid (built in, over --pages), or MODULE:FUNCTION with search(question, k) "
                         "(with --option: MODULE:FACTORY called as FACTORY(**options) to make it)")
    options.golden_inputs(rn, pages="optional", pages_help="the documents the built-in retrievers search: pages.jsonl "
                                                           "or a folder (required with a built-in retriever)")
    rn.add_argument("-k", type=int, default=10, help="results per question (default 10)")
    rn.add_argument("--experiment", default="default", help="experiment name: the log goes to RUNS_DIR/NAME/")
    rn.add_argument("--out", metavar="FILE", help="log path (default RUNS_DIR/EXPERIMENT/<UTC timestamp>.jsonl)")
    rn.add_argument("--runs-dir", default="runs", help="folder of run logs (default runs/)")
    options.key_values(rn, help="built-in retriever option: size, overlap, unit (char|token), heading (true|false); "
                                "for MODULE:FACTORY, its keyword arguments (recorded in the settings)")
    rn.add_argument("--workers", type=int, default=4, help="questions searched at once (default 4)")
    rn.add_argument("--retries", type=int, default=3, help="retries per question after an exception (default 3)")
    rn.add_argument("--backoff", type=float, default=0.5, help="first retry delay in seconds, doubled each time")
    rn.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="give up a call after this long (retried like an error; default: no limit)")
    rn.add_argument("--no-resume", dest="resume", action="store_false", help="refuse to resume a partial log")
    options.no_progress(rn)
    options.files(rn, reads=("--golden", "--pages"),
                  writes=(Output("--out", None, files=(".settings.json",)), Output("--runs-dir", None, folder=True)))


def run(args) -> int:
    import rag_metrics
    from rag_metrics.io.golden import load_golden
    from rag_metrics.retrieval.run_retriever import cut_notices, first_error, log_path, make_search, run_retriever

    golden = load_golden(args.golden)
    search, settings = make_search(args.retriever, options.parse_options(args.option), args.pages)
    # shown by the experiment report's configuration diff
    settings["software"] = f"rag_metrics {rag_metrics.__version__}"
    out = args.out or str(log_path(args.runs_dir, args.experiment, settings, golden, args.k, resume=args.resume))
    summary = run_retriever(search, golden, args.k, out, settings=settings, workers=args.workers,
                            retries=args.retries, backoff=args.backoff, timeout=args.timeout, resume=args.resume,
                            progress=args.progress)
    if summary.get("complete"):
        print(f"{summary['path']} is complete already (published by an earlier run with these settings); nothing "
              "to do. Delete it to run again.")
    else:
        resumed = f", {summary['resumed']} resumed from a partial log" if summary["resumed"] else ""
        print(f"wrote {summary['path']}: {summary['questions']} questions in {summary['wall_time_s']:.1f} s{resumed}")
    for notice in cut_notices(summary, args.k, str(args.retriever)):
        print(notice, file=sys.stderr if notice.startswith("warning:") else sys.stdout)
    failed = summary["failed"]
    if failed and len(failed) == summary["questions"]:
        first = first_error(summary["path"])
        print(f"rag-metrics run: error: every question failed ({len(failed)}); the log records each error"
              + (f", e.g. {first}" if first else "") + ".", file=sys.stderr)
        return 1
    if failed:
        print(f"{len(failed)} question(s) failed after retries (logged with their error): "
              + ", ".join(failed[:10]) + (" ..." if len(failed) > 10 else ""))
    return 0
