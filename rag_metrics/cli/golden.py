"""`rag-metrics golden`: pages -> sample -> generate -> review -> accept, a reviewed golden set
(:mod:`rag_metrics.golden`)."""

from __future__ import annotations

import sys
from pathlib import Path

from rag_metrics.cli import options
from rag_metrics.core.files import Output
from rag_metrics.cli.options import GOLDEN_WORK


def add(sub) -> None:
    gp = sub.add_parser("golden", help="build a golden set: sample pages, generate questions, review, accept",
                        description="sample -> generate -> review -> accept. Files go to golden-work/ by default: "
                                    "outside data/ (the project's own sample) because a golden set quotes your "
                                    "documents; keep it out of the repository.")
    gsub = gp.add_subparsers(dest="action", required=True, metavar="ACTION")
    _add_sample(gsub)
    _add_generate(gsub)
    _add_review(gsub)
    _add_accept(gsub)


def _errors_path(path):
    from rag_metrics.golden.generate import errors_path

    return errors_path(path)


def _add_sample(gsub) -> None:
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
    options.files(gs, reads=("--pages",), writes=(Output("-o", None),))


def _add_generate(gsub) -> None:
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
    options.key_values(gg, help="generator option (repeatable): model, base_url, region, n, language, temperature, "
                                "max_tokens, retries, backoff, json_mode")
    gg.add_argument("--workers", type=int, default=4, help="pages at once (default 4): the concurrency limit")
    options.llm_cost(gg, cache_help=f"LLM response cache (default {GOLDEN_WORK}/cache); a re-run costs nothing")
    options.no_progress(gg)
    options.files(gg, reads=("--sample",), writes=(Output("-o", None, files=(_errors_path,)),))


def _add_review(gsub) -> None:
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
    gr.add_argument("--force", action="store_true", help="replace a review file that exists (it may hold decisions)")
    options.files(gr, reads=("draft", "--sample"),
                  writes=(Output("-o", None, precious=("",)), Output("--html", None)))


def _add_accept(gsub) -> None:
    ga = gsub.add_parser("accept", help="write the golden set from the draft and the reviewed decisions")
    ga.add_argument("draft", nargs="?", default=f"{GOLDEN_WORK}/draft.jsonl", help="the draft")
    ga.add_argument("--decisions", default=f"{GOLDEN_WORK}/review.csv", metavar="FILE",
                    help="the reviewed file (decision keep/drop per question)")
    ga.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/golden.jsonl", metavar="FILE",
                    help=f"the golden set (default {GOLDEN_WORK}/golden.jsonl)")
    ga.add_argument("--pages", metavar="PATH", help="check gold documents and pages against these pages")
    options.files(ga, reads=("draft", "--decisions", "--pages"), writes=(Output("-o", None, files=(".meta.json",)),))


def _sample(args) -> int:
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


def _generate(args) -> int:
    from rag_metrics.golden.generate import errors_path, estimate_cost, generate_questions, sampled_pages, write_draft
    from rag_metrics.golden.generators import load_generator
    from rag_metrics.golden.sampler import read_sample

    sample = read_sample(args.sample)
    generator = load_generator(args.generator, default_cache=args.cache, **options.parse_options(args.option))
    estimate = estimate_cost(sample, generator, price_in=args.price_in, price_out=args.price_out)
    if estimate.get("offline"):
        print(f"{len(sample)} pages: the {estimate['generator']} generator makes no call and costs nothing")
    else:
        options.print_cost(estimate, f"{len(sample)} pages: ")
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


def _review(args) -> int:
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


def _accept(args) -> int:
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


ACTIONS = {"sample": _sample, "generate": _generate, "review": _review, "accept": _accept}


def run(args) -> int:
    return ACTIONS[args.action](args)
