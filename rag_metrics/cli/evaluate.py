"""`rag-metrics evaluate`: one TREC run against TREC qrels (:func:`rag_metrics.evaluate_trec`)."""

from __future__ import annotations

import argparse
import json
import sys

from rag_metrics.cli import options
from rag_metrics.core.errors import ORDERS


def _epilog() -> str:
    from rag_metrics.measures.registry import REGISTRY

    names = ", ".join(spec.display() for spec in REGISTRY.values())
    return f"""\
measures: {names}
  (also: {", ".join(a for spec in REGISTRY.values() for a in spec.aliases)}; case-insensitive)
ordering: by score descending, ties by document ID descending (as trec_eval); --order-by rank
uses the file's rank column instead. Undefined values (a question with no relevant document)
print as null / '-' and are left out of the mean; the 'excluded' column counts them.

example: rag-metrics evaluate qrels.txt run.txt -m recall@5 -m ndcg@10 --format json --per-question
"""


def add(sub) -> None:
    from rag_metrics.io.judgments import LEVELS
    from rag_metrics.measures.evaluator import ENGINES

    ev = sub.add_parser("evaluate", help="evaluate a TREC run against TREC qrels", epilog=_epilog(),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("qrels", help="qrels: TREC 'qid iter docid rel', BEIR TSV or JSON dict (plain or gzip)")
    ev.add_argument("run", help="run: TREC 'qid Q0 docid rank score tag' or JSON dict (plain or gzip)")
    options.measures(ev)
    options.output_format(ev, trec="trec_eval's -q layout and names")
    ev.add_argument("--per-question", "--per-query", dest="per_question", action="store_true",
                    help="also print one value per question")
    ev.add_argument("--doc-map", metavar="FILE", help="TSV chunk_id<TAB>doc_id mapping the run's IDs to documents")
    ev.add_argument("--unit", choices=LEVELS, default="document",
                    help="what the qrels judge: document (default; with --doc-map the run's chunk IDs are mapped to "
                         "documents and collapsed with --order) or chunk (the run's chunk IDs judged as they are)")
    ev.add_argument("--order", choices=ORDERS, default="cut_then_dedup", help="collapsing order at document level")
    options.relevance(ev)
    ev.add_argument("--engine", choices=ENGINES, default="auto",
                    help="auto: the fast columnar path when the files allow it, else the general path (same numbers); "
                         "fast: require the fast path; general: the line-validating reader; "
                         "dask: evaluate on a Dask cluster (RUN may be a glob of many files; --scheduler ADDRESS)")
    ev.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: a local cluster)")
    options.file_formats(ev)


def _table(data: dict) -> str:
    rows = [("measure", "mean", "evaluated", "excluded")]
    for m, v in data["summary"].items():
        mean = "-" if v["mean"] is None else f"{v['mean']:.4f}"
        rows.append((m, mean, str(v["evaluated"]), str(v["excluded"])))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def _per_question(ev) -> str:
    names = list(ev.values)
    columns = [ev.values[m].tolist() for m in names]
    lines = ["\t".join(["question_id", *names])]
    for i, q in enumerate(ev.questions):
        lines.append("\t".join([str(q), *("-" if c[i] != c[i] else f"{c[i]:.4f}" for c in columns)]))
    return "\n".join(lines)


def run(args) -> int:
    from rag_metrics.core.errors import InputError
    from rag_metrics.measures.evaluator import evaluate_trec

    if args.unit == "chunk" and args.doc_map:
        raise InputError("--doc-map maps chunks to documents: use it with --unit document.")
    ev = evaluate_trec(args.qrels, args.run, args.measures, level=args.unit, min_rel=args.min_rel, gain=args.gain,
                       order_by=args.order_by, doc_map=args.doc_map, order=args.order, engine=args.engine,
                       scheduler=args.scheduler, qrels_format=args.qrels_format, run_format=args.run_format)
    data = ev.to_dict(per_question=args.per_question)
    if args.format == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif args.format == "trec":
        sys.stdout.write(ev.to_trec(per_question=args.per_question))
    elif args.format == "csv":
        sys.stdout.write(ev.to_csv(per_question=args.per_question))
    else:
        print(_table(data))
        for m, row in data["summary"].items():
            if "warning" in row:
                print(f"\nwarning: {m}: {row['warning']}")
        if ev.unknown_questions:
            unknown = data["unknown_questions"]
            ids = ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10 else "")
            print(f"\n{len(unknown)} question(s) in the run but not in the qrels, not used: {ids}")
        if args.per_question:
            print()
            print(_per_question(ev))
    return 0
