"""The ``rag-metrics`` command line: a thin shell over the package.

``evaluate`` / ``compare`` (TREC files, :func:`rag_metrics.evaluate_trec`), ``pages`` (documents ->
pages.jsonl), ``run`` (a retriever -> a log), ``report`` (logs or notebooks -> HTML), ``gate`` (a run against a
baseline -> exit status for CI), ``history`` (saved runs) and ``golden`` (pages -> a reviewed golden set). Bad input (:class:`~rag_metrics.InputError`) exits with status 2 and one line
naming the file, line and what was expected; any other exception is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path

from rag_metrics.core.errors import GAINS, ORDERS, InputError

OUTPUT_FORMATS = ("table", "json", "trec", "csv")
"""What ``evaluate`` and ``compare`` print: a table, the evaluation's JSON, trec_eval's layout, or CSV."""

GOLDEN_WORK = "golden-work"
"""Default folder of `rag-metrics golden`: outside data/, listed in .gitignore (a golden set quotes the documents)."""


def _epilog_evaluate() -> str:
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


def _format_options(parser) -> None:
    from rag_metrics.io.formats import QRELS_FORMATS, RUN_FORMATS

    parser.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto",
                        help="qrels format (default: recognized from the content)")
    parser.add_argument("--run-format", choices=RUN_FORMATS, default="auto",
                        help="run format (default: recognized from the content)")


def _add_evaluate(sub) -> None:
    from rag_metrics.io.judgments import LEVELS
    from rag_metrics.io.trec import ORDER_BY
    from rag_metrics.measures.evaluator import ENGINES

    ev = sub.add_parser(
        "evaluate",
        help="evaluate a TREC run against TREC qrels",
        epilog=_epilog_evaluate(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", help="qrels: TREC 'qid iter docid rel', BEIR TSV or JSON dict (plain or gzip)")
    ev.add_argument("run", help="run: TREC 'qid Q0 docid rank score tag' or JSON dict (plain or gzip)")
    ev.add_argument("-m", "--measure", action="append", dest="measures", metavar="NAME",
                    help="measure to compute (repeatable); default: recall@5 precision@5 hit@5 mrr ndcg@10 map")
    ev.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                    help="table (default), json, trec (trec_eval's -q layout and names), csv")
    ev.add_argument("--per-question", "--per-query", dest="per_question", action="store_true",
                    help="also print one value per question")
    ev.add_argument("--doc-map", metavar="FILE", help="TSV chunk_id<TAB>doc_id mapping the run's IDs to documents")
    ev.add_argument("--unit", choices=LEVELS, default="document",
                    help="what the qrels judge: document (default; with --doc-map the run's chunk IDs are mapped to "
                         "documents and collapsed with --order) or chunk (the run's chunk IDs judged as they are)")
    ev.add_argument("--order", choices=ORDERS, default="cut_then_dedup", help="collapsing order at document level")
    ev.add_argument("--min-rel", type=float, default=1, metavar="N", help="lowest label counted as relevant (default 1)")
    ev.add_argument("--gain", choices=GAINS, default="linear", help="nDCG gain (default linear)")
    ev.add_argument("--order-by", choices=ORDER_BY, default="score",
                    help="rank results by score like trec_eval (default) or by the rank column")
    ev.add_argument("--engine", choices=ENGINES, default="auto",
                    help="auto: the fast columnar path when the files allow it, else the general path (same numbers); "
                         "fast: require the fast path; general: the line-validating reader; "
                         "dask: evaluate on a Dask cluster (RUN may be a glob of many files; --scheduler ADDRESS)")
    ev.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: a local cluster)")
    _format_options(ev)


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a command), that command alone: building every subcommand costs
    more than evaluating a small run (argparse looks up translations for each one)."""
    parser = argparse.ArgumentParser(prog="rag-metrics", description="Exact retrieval metrics for RAG evaluation.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_evaluate(sub)
    if only == "evaluate":
        return parser

    from rag_metrics.io import trec

    cp = sub.add_parser("compare", help="compare runs against the first (exact paired test, interval, Holm)",
                        description="One row per run and measure; against the first run (the baseline): the paired "
                                    "difference, the exact paired test's p-value (sign test for 0/1 measures such as "
                                    "hit@k, randomization test otherwise) and the 95% interval of the same test, "
                                    "wins/ties/losses, the Holm-adjusted p-value across the runs and the verdict "
                                    "(better / worse / within noise).")
    cp.add_argument("qrels", help="qrels: TREC, BEIR TSV or JSON dict (plain or gzip)")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="runs, the baseline first")
    cp.add_argument("-m", "--measure", action="append", dest="measures", metavar="NAME",
                    help="measure to compute (repeatable); default: recall@5 precision@5 hit@5 mrr ndcg@10 map")
    cp.add_argument("--format", choices=OUTPUT_FORMATS, default="table")
    cp.add_argument("--min-rel", type=float, default=1, metavar="N", help="lowest label counted as relevant")
    cp.add_argument("--gain", choices=GAINS, default="linear", help="nDCG gain")
    cp.add_argument("--order-by", choices=trec.ORDER_BY, default="score")
    _format_options(cp)

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

    pg = sub.add_parser("pages", help="convert a folder of documents (PDF, Markdown, text) to pages.jsonl",
                        description="One line per page: doc_id, page (from 1), text, and title/genre/language when "
                                    "known. Formats: help(rag_metrics.io.pages).")
    pg.add_argument("docs", help="a folder of documents (recursively), or one document file")
    pg.add_argument("-o", "--output", required=True, metavar="PAGES.jsonl", help="where to write pages.jsonl")

    rn = sub.add_parser("run", help="run a retriever over a golden set and log what it returns",
                        description="Calls search(question, k) for every labelled question (a thread pool, retries "
                                    "with backoff); a question that still fails is logged with its error. An "
                                    "interrupted run resumes when started again with the same settings. Writes "
                                    "OUT (JSON lines) and OUT.settings.json.")
    rn.add_argument("--retriever", required=True, metavar="NAME|MODULE:FUNCTION",
                    help="bm25, dense or hybrid (built in, over --pages), or MODULE:FUNCTION with search(question, k) "
                         "(with --option: MODULE:FACTORY called as FACTORY(**options) to make it)")
    rn.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    rn.add_argument("--pages", metavar="PATH", help="the documents the built-in retrievers search: pages.jsonl or a "
                                                    "folder (required with a built-in retriever)")
    rn.add_argument("-k", type=int, default=10, help="results per question (default 10)")
    rn.add_argument("--experiment", default="default", help="experiment name: the log goes to RUNS_DIR/NAME/")
    rn.add_argument("--out", metavar="FILE", help="log path (default RUNS_DIR/EXPERIMENT/<UTC timestamp>.jsonl)")
    rn.add_argument("--runs-dir", default="runs", help="folder of run logs (default runs/)")
    rn.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="built-in retriever option: size, overlap, unit (char|token), heading (true|false); for "
                         "MODULE:FACTORY, its keyword arguments (recorded in the settings)")
    rn.add_argument("--workers", type=int, default=4, help="questions searched at once (default 4)")
    rn.add_argument("--retries", type=int, default=3, help="retries per question after an exception (default 3)")
    rn.add_argument("--backoff", type=float, default=0.5, help="first retry delay in seconds, doubled each time")
    rn.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="give up a call after this long (retried like an error; default: no limit)")
    rn.add_argument("--no-resume", dest="resume", action="store_false", help="refuse to resume a partial log")
    rn.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")

    gp = sub.add_parser("golden", help="build a golden set: sample pages, generate questions, review, accept",
                        description="sample -> generate -> review -> accept. Files go to golden-work/ by default: "
                                    "outside data/ (the project's own sample) because a golden set quotes your "
                                    "documents; keep it out of the repository.")
    gsub = gp.add_subparsers(dest="action", required=True, metavar="ACTION")
    gs = gsub.add_parser("sample", help="draw text-rich pages from every document (seeded)",
                         description="Body text weighed in characters (a kana/kanji counts 3); pages below "
                                     "--min-chars are never drawn; per document, drawn without replacement with "
                                     "probability proportional to size. help(rag_metrics.golden.sampler)")
    gs.add_argument("--pages", required=True, metavar="PATH", help="pages.jsonl, a folder of documents or a "
                                                                   "document (data/corpus: the project's sample)")
    gs.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/sample.jsonl", metavar="FILE",
                    help=f"where to write the sample (default {GOLDEN_WORK}/sample.jsonl)")
    gs.add_argument("--per-document", type=int, default=3, help="pages per document (default 3)")
    gs.add_argument("--min-chars", type=int, default=200, help="eligibility threshold, weighted characters "
                                                               "(default 200)")
    gs.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    gg = gsub.add_parser("generate", help="ask a generator for questions on every sampled page",
                         description="Generators: extractive (offline), openai (any OpenAI-compatible endpoint: "
                                     "--option model=NAME --option base_url=URL), bedrock (--option model=ID "
                                     "--option region=REGION), or MODULE:CALLABLE. A page that fails is recorded in "
                                     "DRAFT.errors.jsonl and the run goes on. help(rag_metrics.llm.clients)")
    gg.add_argument("--sample", default=f"{GOLDEN_WORK}/sample.jsonl", metavar="FILE",
                    help=f"the page sample (default {GOLDEN_WORK}/sample.jsonl)")
    gg.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/draft.jsonl", metavar="FILE",
                    help=f"where to write the draft (default {GOLDEN_WORK}/draft.jsonl)")
    gg.add_argument("--generator", default="extractive", metavar="NAME|MODULE:CALLABLE",
                    help="extractive (default), openai, bedrock, or MODULE:CALLABLE")
    gg.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="generator option (repeatable): model, base_url, region, n, language, temperature, "
                         "max_tokens, retries, backoff, json_mode")
    gg.add_argument("--cache", default=f"{GOLDEN_WORK}/cache", metavar="DIR",
                    help=f"LLM response cache (default {GOLDEN_WORK}/cache); a re-run costs nothing")
    gg.add_argument("--workers", type=int, default=4, help="pages at once (default 4): the concurrency limit")
    gg.add_argument("--dry-run", action="store_true", help="print calls, estimated tokens and cost; call nothing")
    gg.add_argument("--price-in", type=float, metavar="USD", help="price per million input tokens (cost estimate)")
    gg.add_argument("--price-out", type=float, metavar="USD", help="price per million output tokens")
    gg.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    gr = gsub.add_parser("review", help="flag context-dependent, heading-template and near-duplicate questions; write "
                                        "the review file",
                         description="Writes REVIEW (CSV, or JSON lines by extension) with a decision column "
                                     "pre-filled drop for flagged questions, and an HTML page of each question "
                                     "beside its page. help(rag_metrics.golden.flags)")
    gr.add_argument("draft", nargs="?", default=f"{GOLDEN_WORK}/draft.jsonl", help="the draft "
                                                                                   f"(default {GOLDEN_WORK}/draft.jsonl)")
    gr.add_argument("--sample", default=f"{GOLDEN_WORK}/sample.jsonl", metavar="FILE",
                    help="the page sample the draft was made from (page text, titles)")
    gr.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/review.csv", metavar="FILE",
                    help=f"the review file (default {GOLDEN_WORK}/review.csv)")
    gr.add_argument("--html", default=f"{GOLDEN_WORK}/review.html", metavar="FILE",
                    help=f"the review page (default {GOLDEN_WORK}/review.html)")
    gr.add_argument("--duplicate-threshold", type=float, default=0.7,
                    help="trigram similarity from which a question is a near-duplicate (default 0.7)")
    ga = gsub.add_parser("accept", help="write the golden set from the draft and the reviewed decisions")
    ga.add_argument("draft", nargs="?", default=f"{GOLDEN_WORK}/draft.jsonl", help="the draft")
    ga.add_argument("--decisions", default=f"{GOLDEN_WORK}/review.csv", metavar="FILE",
                    help="the reviewed file (decision keep/drop per question)")
    ga.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/golden.jsonl", metavar="FILE",
                    help=f"the golden set (default {GOLDEN_WORK}/golden.jsonl)")
    ga.add_argument("--pages", metavar="PATH", help="check gold documents and pages against these pages")

    lp = sub.add_parser("labels", help="audit a golden set's labels against retrieved pages; accept the pages it missed",
                        description="audit -> review -> accept; sample -> judge -> assess. "
                                    "help(rag_metrics.labels.audit), help(rag_metrics.stats.agreement)")
    lsub = lp.add_subparsers(dest="action", required=True, metavar="ACTION")
    la = lsub.add_parser("audit", help="candidate answer pages, near-duplicate questions, answers on no gold page, "
                                       "gold pages without text",
                         description="For every answerable question: the retrieved pages that are not gold but hold "
                                     "the expected answer (or a long fragment of the gold evidence), ranked and "
                                     "highlighted. Writes DIR/review.csv (decision pending -> accept/reject), "
                                     "DIR/findings.csv, DIR/audit.html and DIR/audit.json.")
    la.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    la.add_argument("--pages", required=True, metavar="PATH", help="the documents: pages.jsonl or a folder")
    la.add_argument("--run", action="append", required=True, metavar="LOG", help="retrieval log (repeatable)")
    la.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/audit", metavar="DIR",
                    help=f"folder of the review file and page (default {GOLDEN_WORK}/audit)")
    la.add_argument("-k", type=int, help="audit the top k of each log (default: everything logged)")
    la.add_argument("--preset", default="native", help=f"log shape: {', '.join(_presets())} (default native)")
    la.add_argument("--field", action="append", default=[], metavar="NAME=PATH", help="map a log field (repeatable)")
    la.add_argument("--page-base", type=int, choices=(0, 1), help="pages in the log count from 0 or 1")
    la.add_argument("--min-evidence-chars", type=int, default=48,
                    help="shared fragment with the gold evidence that makes a candidate (default 48)")
    la.add_argument("--duplicate-threshold", type=float, default=0.7,
                    help="trigram similarity from which questions are near-duplicates (default 0.7)")
    ls = lsub.add_parser("assess", help="grade the retrieved pages nobody labelled; measure the assessor against people "
                                        "first; hit@k with assessed labels and prediction-powered",
                         description="An assessor (offline: answer and evidence matching; openai / bedrock: an LLM "
                                     "with a versioned graded-relevance prompt) grades every retrieved top-k page. On "
                                     "the pages people labelled (gold pages, judgments) it is measured: confusion "
                                     "matrix, Cohen's kappa with its interval. Only then, when kappa reaches 0.6 on 20+ "
                                     "items (or --force), hit@k with assessed labels added and its prediction-powered "
                                     "estimate are printed. Writes DIR/assessed.jsonl (assessed labels only, apart from "
                                     "human ones) and DIR/agreement.json. help(rag_metrics.stats.agreement)")
    ls.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    ls.add_argument("--pages", required=True, metavar="PATH", help="the documents: pages.jsonl or a folder")
    ls.add_argument("--run", required=True, metavar="LOG", help="retrieval log")
    ls.add_argument("--judgments", metavar="FILE", help="human judgments (default: GOLDEN.judgments.jsonl if present)")
    ls.add_argument("--assessor", default="offline", help="offline (default), openai or bedrock")
    ls.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="assessor option (repeatable): model, base_url, region, retries, backoff, max_tokens, "
                         "min_evidence_chars")
    ls.add_argument("-k", type=int, default=5, help="the top k graded and evaluated (default 5)")
    ls.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/assess", metavar="DIR",
                    help=f"folder of the assessed labels (default {GOLDEN_WORK}/assess)")
    ls.add_argument("--cache", default=f"{GOLDEN_WORK}/cache", metavar="DIR", help="LLM response cache")
    ls.add_argument("--dry-run", action="store_true", help="print calls, estimated tokens and cost; call nothing")
    ls.add_argument("--price-in", type=float, metavar="USD", help="price per million input tokens (cost estimate)")
    ls.add_argument("--price-out", type=float, metavar="USD", help="price per million output tokens")
    ls.add_argument("--force", action="store_true", help="use an assessor below the stated agreement anyway")
    ls.add_argument("--sample", metavar="SHEET", help="a filled judging sheet (`labels sample`): a random sample of "
                                                      "questions people judged completely; gives the prediction-"
                                                      "powered figure")
    lm = lsub.add_parser("sample", help="draw questions at random and list their retrieved pages for people to judge",
                         description="Writes a judging sheet (CSV): n answerable questions drawn at random (seeded) "
                                     "and every page the run retrieved for them in the top k; gold pages pre-marked "
                                     "yes. Mark every other page relevant yes or no, then give the sheet to "
                                     "`labels assess --sample`.")
    lm.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    lm.add_argument("--pages", required=True, metavar="PATH", help="the documents: pages.jsonl or a folder")
    lm.add_argument("--run", required=True, metavar="LOG", help="retrieval log")
    lm.add_argument("-n", type=int, default=30, help="questions drawn (default 30)")
    lm.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    lm.add_argument("-k", type=int, default=5, help="the top k listed (default 5)")
    lm.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/judging_sheet.csv", metavar="FILE",
                    help=f"the sheet (default {GOLDEN_WORK}/judging_sheet.csv)")
    lc = lsub.add_parser("accept", help="write a new golden set with the accepted pages as gold (who, when, why)")
    lc.add_argument("--golden", required=True, metavar="FILE", help="the golden set that was audited")
    lc.add_argument("--decisions", default=f"{GOLDEN_WORK}/audit/review.csv", metavar="FILE",
                    help=f"the reviewed file (default {GOLDEN_WORK}/audit/review.csv)")
    lc.add_argument("-o", "--output", required=True, metavar="FILE", help="the new golden set (JSON lines)")
    lc.add_argument("--by", required=True, metavar="NAME", help="who reviewed (recorded with every accepted page)")
    lc.add_argument("--pages", metavar="PATH", help="check the pages against these documents")

    _add_answers(sub)

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
    rp.add_argument("--preset", default="native", help=f"log shape: {', '.join(_presets())} (default native)")
    rp.add_argument("--field", action="append", default=[], metavar="NAME=PATH",
                    help="map a log field to a dotted path, e.g. doc_id=metadata.source (repeatable)")
    rp.add_argument("--page-base", type=int, choices=(0, 1), help="pages in the log count from 0 or 1 "
                                                                 "(default: the preset's)")
    rp.add_argument("-k", dest="ks", type=int, action="append", help="cutoffs for hit@k (default 1 3 5)")
    rp.add_argument("--min-chars", type=int, default=24, help="overlap judge: shared fragment length F (default 24)")
    rp.add_argument("--window", type=int, default=1, help="page window of the judges (default 1)")
    rp.add_argument("--judge", choices=_judges(),
                    help="judge of the headline (default: overlap if it applies, else page, else document)")
    _verdict_options(rp)
    rp.add_argument("--order", choices=_run_orders(), default="made",
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

    gt = sub.add_parser("gate", help="fail a CI job when a run is significantly worse than a baseline",
                        description="Compares a run with a baseline on one golden set and one ruler: the paired exact "
                                    "test on one measure. Exit 1 when the run is worse and the drop is significant at "
                                    "--alpha, or (with --max-drop) when the mean fell by more than the tolerance; 0 "
                                    "otherwise; 2 on bad input (nothing written). Each side is a retrieval log, a "
                                    "TREC run file or a history record (a file, or an ID with --history-dir). "
                                    "help(rag_metrics.experiment.gate)")
    gt.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    gt.add_argument("--baseline", required=True, metavar="BASE", help="the baseline: a log (PRESET:LOG for a log "
                                                                      "with its own shape), a TREC run or a history "
                                                                      "record")
    gt.add_argument("--run", required=True, metavar="NEW", help="the run to gate: a log (PRESET:LOG for a log with "
                                                                "its own shape), a TREC run or a history record")
    gt.add_argument("--pages", metavar="PATH", help="the documents: pages.jsonl or a folder (judges logged text)")
    gt.add_argument("--history-dir", metavar="DIR", help="history folder where BASE or NEW may be a run ID or name "
                                                         "(e.g. reports/EXPERIMENT/history)")
    gt.add_argument("--preset", default="native", help=f"log shape: {', '.join(_presets())} (default native)")
    gt.add_argument("--field", action="append", default=[], metavar="NAME=PATH",
                    help="map a log field to a dotted path, e.g. doc_id=metadata.source (repeatable)")
    gt.add_argument("--page-base", type=int, choices=(0, 1), help="pages in the logs count from 0 or 1 "
                                                                 "(default: the preset's)")
    gt.add_argument("-k", dest="ks", type=int, action="append", help="cutoffs (default 1 3 5)")
    gt.add_argument("--min-chars", type=int, default=24, help="overlap judge: shared fragment length F (default 24)")
    gt.add_argument("--window", type=int, default=1, help="page window of the judges (default 1)")
    gt.add_argument("--judge", choices=_judges(),
                    help="the ruler (default: the first of overlap, page, marker, document that applies to both)")
    _verdict_options(gt)
    gt.add_argument("--max-drop", type=float, metavar="X",
                    help="also fail when the mean falls by more than X, significant or not (e.g. 0.02)")
    gt.add_argument("--markdown", metavar="FILE", help="append a Markdown summary to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    gt.add_argument("--junit", metavar="FILE", help="write JUnit XML to FILE (a CI test report)")
    gt.add_argument("--report-link", metavar="URL", help="link the Markdown summary to the experiment report at URL "
                    "(an http(s) URL or a relative path)")
    return parser


def _verdict_options(parser) -> None:
    parser.add_argument("--measure", metavar="NAME",
                        help="primary measure of the verdict: hit@K, mrr or recall@K (default hit@ the largest k)")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the verdict's paired exact test "
                                                                  "(default 0.05)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rag_metrics")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without an install
        return "unknown"


def _presets() -> list:
    from rag_metrics.io.logs import PRESETS

    return list(PRESETS)


def _run_orders() -> tuple:
    from rag_metrics.experiment.history import ORDERS as RUN_ORDERS

    return RUN_ORDERS


def _judges() -> list:
    from rag_metrics.judging.judges import JUDGES

    return list(JUDGES)


def _format_table(data: dict) -> str:
    rows = [("measure", "mean", "evaluated", "excluded")]
    for m, v in data["summary"].items():
        mean = "-" if v["mean"] is None else f"{v['mean']:.4f}"
        rows.append((m, mean, str(v["evaluated"]), str(v["excluded"])))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines)


def _format_per_question(ev) -> str:
    names = list(ev.values)
    columns = [ev.values[m].tolist() for m in names]
    lines = ["\t".join(["question_id", *names])]
    for i, q in enumerate(ev.questions):
        lines.append("\t".join([str(q), *("-" if c[i] != c[i] else f"{c[i]:.4f}" for c in columns)]))
    return "\n".join(lines)


def cmd_evaluate(args) -> int:
    from rag_metrics.core.errors import InputError
    from rag_metrics.measures.evaluation import evaluate_trec

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
        print(_format_table(data))
        for m, row in data["summary"].items():
            if "warning" in row:
                print(f"\nwarning: {m}: {row['warning']}")
        if ev.unknown_questions:
            unknown = data["unknown_questions"]
            ids = ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10 else "")
            print(f"\n{len(unknown)} question(s) in the run but not in the qrels, not used: {ids}")
        if args.per_question:
            print()
            print(_format_per_question(ev))
    return 0


def cmd_compare(args) -> int:
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
              "both define; p: the exact paired test (sign test for 0/1 measures, randomization test otherwise); 95% "
              "interval of the same test; verdict from Holm across the runs")
    return 0


def cmd_report(args) -> int:
    from rag_metrics.core.files import check_output
    from rag_metrics.report.runner import ReportError, build_experiment_report, build_report, parse_parameters

    check_output(args.reports_dir, folder=True, option="--reports-dir")
    try:
        if args.run:
            run = build_experiment_report(
                args.experiment, golden=args.golden, runs=args.run, pages=args.pages, answers=args.answers,
                generator=args.generator, preset=args.preset, fields=args.field, page_base=args.page_base,
                ks=args.ks or [1, 3, 5], min_chars=args.min_chars, window=args.window, judge=args.judge,
                measure=args.measure, order=args.order, alpha=args.alpha, drilldowns=args.drilldowns,
                reports_dir=args.reports_dir)
        else:
            for name in ("golden", "pages", "answers", "generator", "page_base", "judge", "measure"):
                if getattr(args, name) is not None:
                    raise InputError(f"--{name.replace('_', '-')} belongs to an experiment report: give the logs "
                                     "with --run LOG.")
            run = build_report(experiment=args.experiment, parameters=parse_parameters(args.parameter),
                               notebooks=args.notebook or None, notebooks_dir=args.notebooks_dir,
                               reports_dir=args.reports_dir, jobs=args.jobs)
    except ReportError as e:
        print(f"rag-metrics report: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {run}")
    return 0


def cmd_gate(args) -> int:
    from rag_metrics.experiment.gate import compare_for_gate, read_side
    from rag_metrics.core.errors import check_alpha, check_int
    from rag_metrics.core.files import check_output
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import parse_field_mapping

    ks = sorted({check_int(k, "k") for k in (args.ks or [1, 3, 5])})
    check_alpha(args.alpha, "--alpha")
    if args.max_drop is not None and not 0 <= args.max_drop <= 1:
        raise InputError(f"--max-drop {args.max_drop!r}: expected a number from 0 to 1, such as 0.02 (a measure's "
                         "mean lies in [0, 1]).", field="max_drop")
    for option, path in (("--markdown", args.markdown), ("--junit", args.junit)):  # refuse before any work
        if path:
            check_output(path, option=option)
    mapping = parse_field_mapping(args.field)
    corpus = load_corpus(args.pages) if args.pages else None
    golden = load_golden(args.golden, corpus=corpus)
    read = dict(history_dir=args.history_dir, preset=args.preset, fields=mapping, page_base=args.page_base)
    baseline, new = read_side(args.baseline, **read), read_side(args.run, **read)
    result = compare_for_gate(golden, baseline, new, corpus, ks=ks, min_chars=args.min_chars, window=args.window,
                              judge=args.judge, measure=args.measure, alpha=args.alpha, max_drop=args.max_drop)
    summary = result.markdown(report=args.report_link) if args.markdown else None  # a bad link refused first
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        with open(args.markdown, "a", encoding="utf-8") as f:  # appended: a CI step summary may hold more
            f.write(summary)
    if args.junit:
        Path(args.junit).parent.mkdir(parents=True, exist_ok=True)
        Path(args.junit).write_text(result.junit(), encoding="utf-8")
    print(result.text())
    return result.decision.exit_code


def cmd_pages(args) -> int:
    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.io.pages import read_document, read_documents, write_pages

    source = args.docs
    pages = read_documents(source) if os.path.isdir(source) else read_document(source)
    corpus = corpus_from_pages(pages, source=source)
    write_pages(pages, args.output)
    empty = corpus.empty_pages
    print(f"wrote {args.output}: {len(corpus.documents)} documents, {len(pages)} pages")
    if empty:
        shown = ", ".join(f"{d} p.{p}" for d, p in empty[:10]) + (" ..." if len(empty) > 10 else "")
        print(f"{len(empty)} page(s) without text (scanned images need OCR first): {shown}")
    return 0


def _options(items) -> dict:
    """``["size=400", "heading=true"]`` -> ``{"size": 400, "heading": True}`` (:func:`rag_metrics.core.options.parse_key_values`)."""
    from rag_metrics.core.options import parse_key_values

    return parse_key_values(items, what="--option")


def cmd_golden(args) -> int:
    if args.action == "sample":
        from rag_metrics.golden.sampler import sample_pages, write_sample
        from rag_metrics.io.corpus import load_corpus

        sample = sample_pages(load_corpus(args.pages), args.per_document, min_chars=args.min_chars, seed=args.seed)
        write_sample(sample, args.output)
        docs = sample.pages["doc_id"].nunique()
        print(f"wrote {args.output}: {len(sample)} pages from {docs} documents (seed {args.seed})")
        for row in sample.shortfalls.to_dict("records"):
            print(f"  {row['doc_id']}: {row['eligible']} of {row['pages']} pages have {args.min_chars}+ weighted "
                  f"characters; drew {row['drawn']} of {row['wanted']}")
        return 0
    if args.action == "generate":
        from rag_metrics.golden.generate import errors_path, estimate_cost, generate_questions, sampled_pages, write_draft
        from rag_metrics.golden.generators import load_generator
        from rag_metrics.golden.sampler import read_sample

        sample = read_sample(args.sample)
        options = _options(args.option)
        if args.generator in ("openai", "bedrock"):
            options.setdefault("cache_dir", args.cache)
        generator = load_generator(args.generator, **options)
        estimate = estimate_cost(sample, generator, price_in=args.price_in, price_out=args.price_out)
        cost = "unknown (give --price-in and --price-out, USD per million tokens)" if estimate["cost"] is None \
            else f"${estimate['cost']:.4f}"
        line = (f"{len(sample)} pages: {estimate['calls']} call(s) to make, {estimate['cached']} cached; estimated "
                f"{estimate['input_tokens']} input + {estimate['output_tokens']} output tokens; cost {cost}")
        if estimate.get("offline"):
            line = f"{len(sample)} pages: the {estimate['generator']} generator makes no call and costs nothing"
        print(line)
        broken = generator.broken_entries(sampled_pages(sample)) if hasattr(generator, "broken_entries") else []
        if broken:
            print(f"{len(broken)} broken cache entr{'y' if len(broken) == 1 else 'ies'} (counted as calls; "
                  f"{'removed and asked again' if not args.dry_run else 'would be removed and asked again'}): "
                  + ", ".join(broken[:5]) + (" ..." if len(broken) > 5 else ""))
        if args.dry_run:
            return 0
        draft = generate_questions(sample, generator, workers=args.workers, progress=args.progress)
        info = draft.info
        if not info["questions"]:
            kept = f"; {args.output} is left as it was" if Path(args.output).exists() else ""
            print(f"rag-metrics golden generate: error: no page gave a question ({len(draft.failures)} of "
                  f"{info['pages']} failed){kept}; nothing written.", file=sys.stderr)
            for row in draft.failures.head(10).to_dict("records"):
                print(f"  {row['doc_id']} page {row['page']}: {row['error']}", file=sys.stderr)
            return 1
        write_draft(draft, args.output)
        print(f"wrote {args.output}: {info['questions']} questions from {info['pages'] - info['failed_pages']} pages "
              f"in {info['seconds']:.1f} s")
        if "usage" in info:
            u = info["usage"]
            print(f"calls {u['calls']}, cached {u['cached']}, retries {u['retries']}; tokens reported by the "
                  f"service: {u['input_tokens']} input + {u['output_tokens']} output")
        if info["pages_without_question"]:
            print(f"{info['pages_without_question']} page(s) gave no question")
        if len(draft.failures):
            print(f"{len(draft.failures)} page(s) failed, recorded in {errors_path(args.output)}:", file=sys.stderr)
            for row in draft.failures.head(10).to_dict("records"):
                print(f"  {row['doc_id']} page {row['page']}: {row['error']}", file=sys.stderr)
        return 0
    if args.action == "review":
        from rag_metrics.core.files import atomic_write_text
        from rag_metrics.golden.generate import read_draft
        from rag_metrics.golden.review import review_html
        from rag_metrics.golden.review_file import review_draft, write_review
        from rag_metrics.golden.sampler import read_sample

        draft = read_draft(args.draft)
        sample = read_sample(args.sample)
        review = review_draft(draft, sample, duplicate_threshold=args.duplicate_threshold)
        html = review_html(review, draft, sample)
        write_review(review, args.output)
        atomic_write_text(args.html, html)
        flagged = int((review["decision"] == "drop").sum())
        print(f"wrote {args.output} and {args.html}: {len(review)} questions, {flagged} flagged (pre-filled drop)")
        for row in review[review["decision"] == "drop"].head(20).to_dict("records"):
            print(f"  {row['question_id']}: {row['reasons']}")
        return 0
    from rag_metrics.golden.generate import read_draft
    from rag_metrics.golden.review import accept
    from rag_metrics.golden.review_file import read_decisions
    from rag_metrics.io.corpus import load_corpus

    draft = read_draft(args.draft)
    decisions = read_decisions(args.decisions)
    corpus = load_corpus(args.pages) if args.pages else None
    golden, path = accept(draft, decisions, args.output, decisions_source=args.decisions, corpus=corpus)
    dropped = int((decisions["decision"] == "drop").sum())
    print(f"wrote {path}: {len(golden.questions)} questions kept, {dropped} dropped; fingerprint "
          f"{golden.fingerprint()}")
    return 0


def cmd_labels(args) -> int:
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden

    if args.action == "audit":
        from rag_metrics.core.files import check_output
        from rag_metrics.labels.audit import audit_labels
        from rag_metrics.io.logs import load_log, parse_field_mapping

        check_output(args.output, folder=True)
        corpus = load_corpus(args.pages)
        golden = load_golden(args.golden, corpus=corpus)
        fields = parse_field_mapping(args.field)
        logs = [load_log(path, preset=args.preset, fields=fields, page_base=args.page_base) for path in args.run]
        audit = audit_labels(golden, corpus, logs, k=args.k, min_evidence_chars=args.min_evidence_chars,
                             duplicate_threshold=args.duplicate_threshold)
        paths = audit.write(args.output)
        c = audit.counts()
        share = "-" if c["judged_share"] is None else f"{c['judged_share']:.3f}"
        print(f"wrote {paths['review']} and {paths['html']}: {c['candidates']} candidate page(s) for "
              f"{c['questions_with_candidates']} question(s) ({c['candidates_with_answer']} hold the expected answer); "
              f"judged share of the retrieved pages {share}")
        print(f"{c['near_duplicates']} near-duplicate pair(s), {c['answer_not_on_gold_page']} answer(s) on no gold "
              f"page, {c['no_expected_answer']} question(s) without an expected answer, {c['gold_pages_without_text']} "
              f"gold page(s) without text: {paths['findings']}")
        for row in audit.candidates.head(10).to_dict("records"):
            print(f"  {row['candidate_id']}: {row['reasons']}")
        return 0
    if args.action == "assess":
        return _labels_assess(args)
    if args.action == "sample":
        from rag_metrics.experiment.evaluate import evaluate_log
        from rag_metrics.labels.audit import judging_sample
        from rag_metrics.core.files import check_output
        from rag_metrics.golden.review_file import write_review
        from rag_metrics.io.logs import load_log

        check_output(args.output)
        corpus = load_corpus(args.pages)
        golden = load_golden(args.golden, corpus=corpus)
        sheet = judging_sample(evaluate_log(golden, load_log(args.run), corpus, ks=(args.k,)), args.n, seed=args.seed,
                               k=args.k)
        write_review(sheet, args.output)
        todo = int(sheet["relevant"].isna().sum() - sheet["doc_id"].isna().sum())
        print(f"wrote {args.output}: {sheet['question_id'].nunique()} questions drawn at random (seed {args.seed}), "
              f"{int(sheet['doc_id'].notna().sum())} retrieved top-{args.k} pages, {todo} to judge (mark relevant "
              "yes or no; gold pages are marked yes)")
        return 0
    from rag_metrics.core.files import check_output
    from rag_metrics.labels.audit import accept_labels, read_audit_decisions

    check_output(args.output)
    corpus = load_corpus(args.pages) if args.pages else None
    decisions = read_audit_decisions(args.decisions)
    golden, path, jpath = accept_labels(args.golden, decisions, args.output, by=args.by, corpus=corpus,
                                        decisions_source=args.decisions)
    meta = json.loads(Path(str(path) + ".meta.json").read_text(encoding="utf-8"))
    unchanged = f", {meta['unchanged']} decided so already" if meta["unchanged"] else ""
    print(f"wrote {path}: {meta['accepted']} page(s) accepted as gold, {meta['rejected']} rejected, {meta['pending']} "
          f"pending{unchanged}; human judgments in {jpath}")
    if meta["previous_fingerprint"] == meta["fingerprint"] and not meta["accepted"] and not meta["rejected"]:
        print(f"nothing changed: every decision is in {args.golden} already (fingerprint {meta['fingerprint']})")
    elif meta["previous_fingerprint"] == meta["fingerprint"]:
        print(f"fingerprint {meta['fingerprint']} unchanged: no page became gold (only rejections), so runs judged "
              "against the old set stay comparable")
    else:
        print(f"fingerprint {meta['previous_fingerprint']} -> {meta['fingerprint']}: runs judged against the old set "
              "are not compared with runs judged against the new one")
    return 0


def _labels_assess(args) -> int:
    import pandas as pd

    from rag_metrics.labels.agreement import agreement, assessed_figures
    from rag_metrics.labels.assessors import assess_items, assessment_items
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.core.files import check_output, publish_files
    from rag_metrics.labels.llm_assessors import load_assessor
    from rag_metrics.labels.audit import check_matches, human_labels, load_judgments
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.jsonl import jsonl_text
    from rag_metrics.io.logs import load_log

    out = check_output(args.output, folder=True)
    options = _options(args.option)
    if args.assessor in ("openai", "bedrock"):
        options.setdefault("cache_dir", args.cache)
    assessor = load_assessor(args.assessor, **options)
    corpus = load_corpus(args.pages)
    golden = load_golden(args.golden, corpus=corpus)
    judgments_path = args.judgments or (str(args.golden) + ".judgments.jsonl")
    judgments = load_judgments(judgments_path) if args.judgments or Path(judgments_path).is_file() else None
    sample = None
    if args.sample:
        from rag_metrics.labels.audit import read_judging_sheet

        sheet, sample = read_judging_sheet(args.sample, golden=golden)
        judgments = sheet if judgments is None else pd.concat([judgments, sheet], ignore_index=True).drop_duplicates(
            ["question_id", "doc_id", "page"], keep="last")
    human = human_labels(golden, judgments)
    result = evaluate_log(golden, load_log(args.run), corpus, ks=(args.k,))
    check_matches(result)
    items = assessment_items(result, corpus, k=args.k)
    keys = ["question_id", "doc_id", "page"]
    labelled_keys = set(map(tuple, human[keys].itertuples(index=False)))
    is_labelled = [t in labelled_keys for t in map(tuple, items[keys].itertuples(index=False))]
    if hasattr(assessor, "estimate"):
        est = assessor.estimate(items, price_in=args.price_in, price_out=args.price_out)
        cost = "unknown (give --price-in and --price-out, USD per million tokens)" if est["cost"] is None \
            else f"${est['cost']:.4f}"
        print(f"{len(items)} retrieved top-{args.k} pages ({sum(is_labelled)} labelled by people, graded to measure the "
              f"assessor): {est['calls']} call(s) to make, {est['cached']} cached; estimated {est['input_tokens']} "
              f"input + {est['output_tokens']} output tokens; cost {cost}")
    else:
        print(f"{len(items)} retrieved top-{args.k} pages ({sum(is_labelled)} labelled by people); the "
              f"{args.assessor} assessor makes no call and costs nothing")
    if args.dry_run:
        return 0
    measured = assess_items(items[is_labelled], assessor)
    labels = assess_items(items, assessor, human=human)
    agr = agreement(measured, human, assessor=args.assessor)
    shown = agr.usable or args.force
    figures = assessed_figures(result, pd.concat([measured, labels], ignore_index=True), human, agr, k=args.k,
                               force=args.force, sample=sample) if shown else None  # any refusal before writing
    publish_files({out / "agreement.json": json.dumps(agr.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n",
                   out / "assessed.jsonl": jsonl_text(labels.to_dict("records"))}, folder=out)
    k = agr.kappa
    kappa = "undefined" if k.kappa is None else f"{k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}]"
    print(f"agreement with people on {agr.n} labelled pages: kappa {kappa}, accuracy {agr.accuracy:.3f}")
    print(agr.confusion.to_string())
    print(agr.verdict)
    print(f"wrote {out / 'assessed.jsonl'}: {len(labels)} assessed label(s) of unlabelled pages "
          f"({int(labels['relevant'].sum()) if len(labels) else 0} relevant), kept apart from the human labels")
    if not shown:
        print("figures with assessed labels are not shown: the assessor is refused for headline figures (--force to "
              "see them anyway)")
        return 0
    print(figures.table().to_string(float_format=lambda v: f"{v:.3f}"))
    if args.force and not agr.usable:
        print("(forced: the assessor is below the stated agreement)")
    if sample is None:
        print("no prediction-powered figure: give --sample, a random sample of questions people judged completely "
              "(`rag-metrics labels sample`)")
    return 0


def cmd_run(args) -> int:
    import datetime as dt

    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.retrieval.runner import BUILTINS, builtin_search, cut_notices, find_resumable, load_retriever, run_retriever

    golden = load_golden(args.golden)
    options = _options(args.option)
    if args.retriever in BUILTINS:
        unknown = sorted(set(options) - {"size", "overlap", "unit", "heading"})
        if unknown:
            raise InputError(f"unknown option(s) {unknown} for the built-in retriever; expected size, overlap, unit, "
                             "heading.")
        if not args.pages:
            raise InputError(f"the built-in retriever {args.retriever} searches your documents: give --pages PATH "
                             "(pages.jsonl or a folder; data/corpus is the project's sample).", field="pages")
        corpus = load_corpus(args.pages)
        search = builtin_search(args.retriever, corpus, **options)
        settings = {"retriever": args.retriever, "options": {**options, **search.settings},
                    "corpus": str(args.pages or "sample")}
    else:
        if args.pages:
            raise InputError("--pages is the corpus of the built-in retrievers (bm25, dense, hybrid); your retriever "
                             "reads its own.")
        search = load_retriever(args.retriever, **options)
        settings = {"retriever": args.retriever, "options": options}
    import rag_metrics

    settings["software"] = f"rag_metrics {rag_metrics.__version__}"  # shown by the experiment report's configuration diff
    out = args.out
    if out is None:
        from rag_metrics.core.errors import check_name

        check_name(args.experiment, what="experiment name")
        folder = Path(args.runs_dir, args.experiment)
        resumable = find_resumable(folder, settings, golden, args.k) if args.resume else None
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        out = str(resumable or folder / f"{stamp}.jsonl")
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
        first = _first_error(summary["path"])
        print(f"rag-metrics run: error: every question failed ({len(failed)}); the log records each error"
              + (f", e.g. {first}" if first else "") + ".", file=sys.stderr)
        return 1
    if failed:
        print(f"{len(failed)} question(s) failed after retries (logged with their error): "
              + ", ".join(failed[:10]) + (" ..." if len(failed) > 10 else ""))
    return 0


def _first_error(path) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                error = json.loads(line).get("error")
                if error:
                    return str(error)[:300]
    except (OSError, ValueError):
        return None
    return None


def cmd_history(args) -> int:
    import warnings

    from rag_metrics.experiment.history import HistoryWarning, diff, list_runs, load_run

    if args.action == "list":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HistoryWarning)
            runs = list_runs(args.dir)
        for w in caught:
            print(f"rag-metrics history: warning: {w.message}", file=sys.stderr)
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


def _answers_inputs(parser, *, several: bool) -> None:
    """The options every `answers` action shares: whose answers, the context they were made from, the judge."""
    from rag_metrics.judging.support_llm import JUDGES

    parser.add_argument("--golden", required=True, metavar="FILE", help="golden set (JSON lines or CSV)")
    parser.add_argument("--pages", required=True, metavar="PATH", help="the documents: pages.jsonl or a folder")
    parser.add_argument("--answers", required=True, metavar="FILE", help="logged answers (JSON lines)")
    if several:
        parser.add_argument("--generator", action="append", default=[], metavar="NAME",
                            help="the generator whose answers are judged; twice for the change between two")
    else:
        parser.add_argument("--generator", metavar="NAME",
                            help="the generator whose answers are judged (required when the log holds several)")
    parser.add_argument("--context-k", type=int, default=3, help="items the generator read (default 3)")
    parser.add_argument("--judge", dest="support_judge", default="offline", choices=JUDGES,
                        help="support judge (default offline)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="judge option (repeatable): min_overlap; model, base_url, region, retries, max_tokens")
    parser.add_argument("--cache", default=f"{GOLDEN_WORK}/cache", metavar="DIR", help="LLM verdict cache")
    parser.add_argument("--dry-run", action="store_true", help="print calls, estimated tokens and cost; call nothing")
    parser.add_argument("--price-in", type=float, metavar="USD", help="price per million input tokens (cost estimate)")
    parser.add_argument("--price-out", type=float, metavar="USD", help="price per million output tokens")


def _add_answers(sub) -> None:
    ap = sub.add_parser("answers", help="judge logged answers: claim support in the context, correctness, diagnosis",
                        description="judge; sample -> label -> assess. help(rag_metrics.experiment.support), "
                                    "docs/answer_support.md")
    asub = ap.add_subparsers(dest="action", required=True, metavar="ACTION")
    aj = asub.add_parser("judge", help="each answer's claims judged against the context it was made from; the "
                                       "diagnosis per question (passed, retrieval failure, answered from memory...)",
                         description="Splits every logged answer into claims, judges each against the top "
                                     "--context-k items the generator read, judges the answer's correctness beside "
                                     "the lexical match, and prints the diagnosis counts with intervals (and, for two "
                                     "generators, the paired change of the passed share). With --labels the judge is "
                                     "first measured against people and refused below kappa 0.6 unless --force. "
                                     "Exit 2 on bad input, before anything is written.")
    _answers_inputs(aj, several=True)
    aj.add_argument("--labels", metavar="FILE", help="a labelled support set (data/support/claims.jsonl for the "
                                                     "sample) to measure the judge against people first")
    aj.add_argument("--force", action="store_true", help="use a judge below the stated agreement anyway")
    aj.add_argument("-o", "--output", metavar="FILE", help="write the diagnosis as JSON")
    am = asub.add_parser("sample", help="draw judged claims at random for people to label supported or not",
                         description="Judges every claim of one generator's answers, then writes a labelling sheet "
                                     "(CSV): n judged claims drawn at random (seeded) with their question, the items "
                                     "the answer was made from and the span the judge found; the judge's verdict is "
                                     "not shown. Mark every row supported yes or no (kind and why optional), then "
                                     "give the sheet to `answers assess --sheet`.")
    _answers_inputs(am, several=False)
    am.add_argument("-n", type=int, default=30, help="claims drawn (default 30)")
    am.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    am.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/support_sheet.csv", metavar="FILE",
                    help=f"the sheet (default {GOLDEN_WORK}/support_sheet.csv)")
    aa = asub.add_parser("assess", help="the judge against the people's labels of a sheet; the supported-claim rate, "
                                        "prediction-powered",
                         description="Judges the claims again as `answers sample` did (same options), reads the "
                                     "filled sheet and prints the judge's agreement with people (Cohen's kappa with "
                                     "its interval, per kind where the sheet names kinds) and the supported-claim "
                                     "rate over every judged claim: the judge's alone, the people's sample alone, "
                                     "and prediction-powered. Exit 2 on a bad sheet, before anything is written.")
    _answers_inputs(aa, several=False)
    aa.add_argument("--sheet", required=True, metavar="FILE", help="the filled sheet of `answers sample`")
    aa.add_argument("-o", "--output", metavar="FILE", help="write the agreement and the rates as JSON")


def _judged_answers(args):
    """``(golden, corpus, [(generator, answers)], judge)`` of an `answers` action; the cost of an LLM judge printed
    (``extra_tasks``: more tasks to count) before any call. None when ``--dry-run`` stops there."""
    from rag_metrics.judging.support_llm import load_judge
    from rag_metrics.io.corpus import load_answers, load_corpus
    from rag_metrics.io.golden import load_golden

    if args.context_k < 1:
        raise InputError(f"--context-k: expected a whole number >= 1, got {args.context_k}.")
    corpus = load_corpus(args.pages)
    golden = load_golden(args.golden, corpus=corpus)
    answers = load_answers(args.answers)
    names = sorted(set(answers["generator"])) if "generator" in answers.columns else []
    given = args.generator if isinstance(args.generator, list) else [g for g in [args.generator] if g is not None]
    chosen = given or (names if len(names) <= 1 else [])
    if not chosen and names:
        raise InputError(f"{args.answers}: answers of {len(names)} generators ({', '.join(map(str, names))}); "
                         "choose one with --generator" + (" (twice to compare two)." if isinstance(args.generator,
                                                                                                 list) else "."))
    if len(chosen) > 2 or any(g not in names for g in chosen if names):
        raise InputError(f"--generator: expected one or two of {names}, got {chosen}.")
    runs = [(g, answers[answers["generator"] == g]) for g in chosen] if names else [("answers", answers)]
    judge = load_judge(args.support_judge, cache_dir=args.cache, **_options(args.option))
    return golden, corpus, runs, judge


def _judge_cost(args, judge, tasks) -> bool:
    """Print what an LLM judge would be asked before any call; False when ``--dry-run`` stops there."""
    if not hasattr(judge, "estimate"):
        return True
    est = judge.estimate(tasks, price_in=args.price_in, price_out=args.price_out)
    cost = "unknown (give --price-in and --price-out)" if est["cost"] is None else f"${est['cost']:.4f}"
    print(f"{est['calls']} call(s) to make, {est['cached']} cached; estimated {est['input_tokens']} input + "
          f"{est['output_tokens']} output tokens; cost {cost}")
    return not args.dry_run


def _write_json(out: Path, report: dict) -> None:
    """Write ``report`` to ``out`` and read it back: the file must hold exactly what was meant."""
    from rag_metrics.core.files import atomic_write_text

    text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(out, text)
    if json.loads(out.read_text(encoding="utf-8")) != json.loads(text):
        raise InputError(f"{out}: the file written does not read back unchanged.")
    print(f"wrote {out}")


def _json_output(path) -> Path | None:
    from rag_metrics.core.files import check_output

    if path is None:
        return None
    out = check_output(path)
    if out.suffix != ".json":
        raise InputError(f"-o {out}: expected a .json file.")
    return out


def cmd_answers(args) -> int:
    if args.action in ("sample", "assess"):
        return _answers_sheet(args)
    from rag_metrics.experiment.support import diagnose_answers, diagnosis_change, judge_tasks, measure_judges, read_support_set
    from rag_metrics.judging.support import context_passages

    out = _json_output(args.output)
    golden, corpus, runs, judge = _judged_answers(args)
    labels = read_support_set(args.labels) if args.labels else None
    if hasattr(judge, "estimate"):
        tasks = [t for _, frame in runs for t in judge_tasks(golden, frame, corpus, context_k=args.context_k)]
        if labels is not None:
            tasks += [("support", c, context_passages([{"doc_id": d, "pages": [p]} for d, p in ctx], corpus))
                      for c, ctx in zip(labels["claim"], labels["context"])]
        if not _judge_cost(args, judge, tasks):
            return 0
    agreement = None
    if labels is not None:
        agreement = measure_judges(labels, corpus, {args.support_judge: judge})
        print(agreement.summary().to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        agreement.require(args.support_judge, force=args.force)
    else:
        print(f"the {args.support_judge} judge was not measured against people here (--labels FILE)")
    llm = hasattr(judge, "correct")
    done = [(g, diagnose_answers(golden, frame, corpus, judge=judge, correctness=judge if llm else None,
                                 context_k=args.context_k)) for g, frame in runs]
    report = {"judge": args.support_judge, "agreement": None if agreement is None else
              json.loads(agreement.summary().to_json(orient="records")), "runs": {}}
    for g, d in done:
        print(f"\n{g}: {len(d.records)} answerable questions")
        print(d.rates().to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        report["runs"][g] = d.to_dict()
    if len(done) == 2:
        ch = diagnosis_change(done[0][1], done[1][1])
        print(f"\npassed share, {done[1][0]} minus {done[0][0]}: {ch['change']:+.3f} [{ch['low']:+.3f}, "
              f"{ch['high']:+.3f}], exact sign test p = {ch['p']:.3f} ({ch['wins']} gained, {ch['losses']} lost)")
        report["change"] = {k: v for k, v in ch.items() if k != "table"}
    if out is not None:
        _write_json(out, report)
    return 0


def _answers_sheet(args) -> int:
    """`answers sample` and `answers assess`: one generator's claims judged, then a sheet written or read."""
    from rag_metrics.experiment.support import diagnose_answers, judge_tasks, sheet_agreement
    from rag_metrics.core.files import check_output
    from rag_metrics.labels.support_sheet import claims_sample, judged_claims, read_support_sheet, write_support_sheet

    if args.action == "sample":
        check_output(args.output)
        if args.n < 2:
            raise InputError(f"-n: expected a whole number >= 2 (a sheet of one claim measures nothing), got {args.n}.")
    out = _json_output(args.output) if args.action == "assess" else None
    golden, corpus, runs, judge = _judged_answers(args)
    (name, frame), = runs
    if hasattr(judge, "estimate") and not _judge_cost(args, judge, [t for t in judge_tasks(
            golden, frame, corpus, context_k=args.context_k) if t[0] == "support"]):
        return 0
    # support only: correctness is not on the sheet, so it is not asked of an LLM judge (a constant stands in)
    diagnosis = diagnose_answers(golden, frame, corpus, judge=judge, correctness=lambda a, e: False,
                                 context_k=args.context_k)
    judged = judged_claims(diagnosis)
    if args.action == "sample":
        sheet = claims_sample(diagnosis, golden.questions["question"], args.n, seed=args.seed)
        write_support_sheet(sheet, args.output)
        print(f"wrote {args.output}: {len(sheet)} of {len(judged)} judged claims of {name} drawn at random (seed "
              f"{args.seed}) from {sheet['question_id'].nunique()} questions; mark every row supported yes or no "
              "against the whole context (the judge's verdict is not shown), then `rag-metrics answers assess "
              "--sheet`")
        return 0
    labels = read_support_sheet(args.sheet, judged).set_index("claim_id")
    verdicts = judged.set_index("claim_id")["supported"]
    result = sheet_agreement(labels["human"], verdicts, kinds=labels["kind"], judge=args.support_judge)
    print(f"{name}: {len(labels)} labelled of {len(verdicts)} judged claims; {result.verdict()}; accuracy "
          f"{result.accuracy:.3f}")
    kinds = result.by_kind()
    if len(kinds):
        print(kinds.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    else:
        print("per kind: the sheet names no kind")
    print(result.rates().to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if out is not None:
        _write_json(out, {"generator": name, "sheet": str(args.sheet), "context_k": args.context_k,
                          **result.to_dict()})
    return 0


COMMANDS = {"evaluate": cmd_evaluate, "compare": cmd_compare, "history": cmd_history, "report": cmd_report,
            "pages": cmd_pages, "run": cmd_run, "golden": cmd_golden, "labels": cmd_labels, "gate": cmd_gate,
            "answers": cmd_answers}


_PACKAGE = str(Path(__file__).resolve().parent)


def _one_line_warning(command: str, show):
    """The package's own warnings (a skipped history record, a broken cache entry) as one line, ``rag-metrics
    COMMAND: warning: ...``, instead of Python's file, line and source; other libraries' warnings as ``show`` does."""
    def one_line(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, UserWarning) and str(Path(filename).resolve()).startswith(_PACKAGE):
            print(f"rag-metrics {command}: warning: {message}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)
    return one_line


def main(argv=None) -> int:
    first = (sys.argv[1:] if argv is None else list(argv))[:1]
    args = _parser(only="evaluate" if first == ["evaluate"] else None).parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning(args.command, warnings.showwarning)
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
