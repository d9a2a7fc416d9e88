"""Option groups several commands share, each declared once: the TREC inputs, the output format, the golden set and
its documents, the log shape, the ruler, the verdict, an LLM's cost controls and the answers to judge.

Choices are the package's own tuples (a new format, engine, preset or judge reaches the command line without being
typed twice); anything heavier than argparse is imported inside the function that needs it, so that `rag-metrics
evaluate` starts without pandas.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rag_metrics.core.errors import GAINS
from rag_metrics.core.files import Output

OUTPUT_FORMATS = ("table", "json", "trec", "csv")
"""What ``evaluate`` and ``compare`` print: a table, the evaluation's JSON, trec_eval's layout, or CSV."""

GOLDEN_WORK = "golden-work"
"""Default folder of `rag-metrics golden`: outside data/, listed in .gitignore (a golden set quotes the documents)."""

DEFAULT_MEASURES = "recall@5 precision@5 hit@5 mrr ndcg@10 map"


def presets() -> list:
    from rag_metrics.io.log_presets import PRESETS

    return list(PRESETS)


def judges() -> list:
    from rag_metrics.judging.judges import JUDGES

    return list(JUDGES)


def measures(parser) -> None:
    parser.add_argument("-m", "--measure", action="append", dest="measures", metavar="NAME",
                        help=f"measure to compute (repeatable); default: {DEFAULT_MEASURES}")


def relevance(parser) -> None:
    """How `evaluate` and `compare` read qrels and runs: the relevance threshold, the gain, how a run is ordered."""
    from rag_metrics.io.trec import ORDER_BY

    parser.add_argument("--min-rel", type=float, default=1, metavar="N",
                        help="lowest label counted as relevant (default 1)")
    parser.add_argument("--gain", choices=GAINS, default="linear", help="nDCG gain (default linear)")
    parser.add_argument("--order-by", choices=ORDER_BY, default="score",
                        help="rank results by score like trec_eval (default) or by the rank column")


def file_formats(parser) -> None:
    from rag_metrics.io.formats import QRELS_FORMATS, RUN_FORMATS

    parser.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto",
                        help="qrels format (default: recognized from the content)")
    parser.add_argument("--run-format", choices=RUN_FORMATS, default="auto",
                        help="run format (default: recognized from the content)")


def output_format(parser, *, trec: str) -> None:
    """``--format`` (:data:`OUTPUT_FORMATS`); ``trec`` says what the trec layout holds for this command."""
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="table", help=f"table (default), json, trec "
                                                                                 f"({trec}), csv")


def golden_inputs(parser, *, golden_help: str = "golden set (JSON lines or CSV)", pages: str = "required",
                  pages_help: str = "the documents: pages.jsonl or a folder") -> None:
    """``--golden FILE`` and ``--pages PATH`` (``pages``: "required", "optional" or "none")."""
    parser.add_argument("--golden", required=True, metavar="FILE", help=golden_help)
    if pages != "none":
        parser.add_argument("--pages", required=pages == "required", metavar="PATH", help=pages_help)


def log_shape(parser) -> None:
    """How a retrieval log is read: its preset, field mapping and page base."""
    parser.add_argument("--preset", default="native", help=f"log shape: {', '.join(presets())} (default native)")
    parser.add_argument("--field", action="append", default=[], metavar="NAME=PATH",
                        help="map a log field to a dotted path, e.g. doc_id=metadata.source (repeatable)")
    parser.add_argument("--page-base", type=int, choices=(0, 1), help="pages in the log count from 0 or 1 "
                                                                     "(default: the preset's)")


def ruler(parser, *, judge_help: str) -> None:
    """The ruler of the experiment report and the gate: cutoffs, the judges' settings, which judge."""
    parser.add_argument("-k", dest="ks", type=int, action="append", help="cutoffs (default 1 3 5)")
    parser.add_argument("--min-chars", type=int, default=24, help="overlap judge: shared fragment length F "
                                                                  "(default 24)")
    parser.add_argument("--window", type=int, default=1, help="page window of the judges (default 1)")
    parser.add_argument("--judge", choices=judges(), help=judge_help)


def verdict(parser) -> None:
    parser.add_argument("--measure", metavar="NAME",
                        help="primary measure of the verdict: hit@K, mrr or recall@K (default hit@ the largest k)")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the verdict's paired test "
                                                                  "(default 0.05)")


def key_values(parser, *, help: str) -> None:
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help=help)


def llm_cost(parser, *, cache_help: str = "LLM response cache") -> None:
    """An LLM's cache and what a run would cost before any call; a price is a finite number >= 0, refused when
    parsed otherwise (a cost of $-0.25, $nan or $inf says nothing)."""
    def price(text: str) -> float:
        import argparse
        import math

        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            raise argparse.ArgumentTypeError(f"{text!r}: expected a finite number >= 0 (USD per million tokens)")
        return value

    parser.add_argument("--cache", default=f"{GOLDEN_WORK}/cache", metavar="DIR", help=cache_help)
    parser.add_argument("--dry-run", action="store_true", help="print calls, estimated tokens and cost; call nothing")
    parser.add_argument("--price-in", type=price, metavar="USD", help="price per million input tokens (cost estimate)")
    parser.add_argument("--price-out", type=price, metavar="USD", help="price per million output tokens")


def no_progress(parser) -> None:
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def seeded_sample(parser, *, n_help: str, output: str) -> None:
    """A sheet drawn at random for people to label: how many, the seed, where."""
    parser.add_argument("-n", type=int, default=30, help=n_help)
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/{output}", metavar="FILE",
                        help=f"the sheet (default {GOLDEN_WORK}/{output})")


def answers_inputs(parser, *, several: bool) -> None:
    """The options every `answers` action shares: whose answers, the context they were made from, the judge."""
    from rag_metrics.answers.support_llm import JUDGES

    golden_inputs(parser)
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
    key_values(parser, help="judge option (repeatable): min_overlap; model, base_url, region, retries, max_tokens")
    llm_cost(parser, cache_help="LLM verdict cache")


def parse_options(items) -> dict:
    """``["size=400", "heading=true"]`` -> ``{"size": 400, "heading": True}``
    (:func:`rag_metrics.core.options.parse_key_values`)."""
    from rag_metrics.core.options import parse_key_values

    return parse_key_values(items, what="--option")


def print_cost(estimate: dict, head: str) -> None:
    """One line: ``head`` then the calls, cached answers, estimated tokens and cost of an LLM's work."""
    cost = "unknown (give --price-in and --price-out, USD per million tokens)" if estimate["cost"] is None \
        else f"${estimate['cost']:.4f}"
    print(f"{head}{estimate['calls']} call(s) to make, {estimate['cached']} cached; estimated "
          f"{estimate['input_tokens']} input + {estimate['output_tokens']} output tokens; cost {cost}")


def files(parser, *, reads=(), writes=()) -> None:
    """Declare what a command reads and writes, for the check every command goes through before it writes
    (:func:`rag_metrics.core.files.check_writes`, called by :func:`rag_metrics.cli.main`): ``reads``, the options
    (flags, or a positional argument's name) naming files or folders read; ``writes``, one
    :class:`~rag_metrics.core.files.Output` per option that writes, its ``path`` left None here."""
    parser.set_defaults(_reads=tuple(reads), _writes=tuple(writes))


def _dest(flag: str) -> str:
    return "output" if flag == "-o" else flag.lstrip("-").replace("-", "_")


def _read_path(value: str):
    """The file a read option names: the value itself, else the LOG of a ``PRESET:LOG`` run spec."""
    if Path(value).exists() or ":" not in value:
        return value
    from rag_metrics.core.errors import InputError
    from rag_metrics.io.log_presets import parse_run_spec

    try:
        return str(parse_run_spec(value).path)
    except InputError:
        return value


def declared_files(args) -> tuple[list, list]:
    """``(reads, outputs)`` of a parsed command line, as :func:`files` declared them: ``[(option, path)]`` and
    :class:`~rag_metrics.core.files.Output` with their paths."""
    reads = []
    for flag in getattr(args, "_reads", ()):
        values = getattr(args, _dest(flag), None)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str) and value:
                reads.append((flag, _read_path(value)))
    outputs = []
    for out in getattr(args, "_writes", ()):
        value = getattr(args, _dest(out.option), None)
        if isinstance(value, str) and value:
            outputs.append(replace(out, path=Path(value)))
    return reads, outputs
