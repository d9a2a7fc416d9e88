"""`rag-metrics labels`: audit -> review -> accept a golden set's labels; sample -> judge -> assess an assessor of
the pages nobody labelled (:mod:`rag_metrics.labels`)."""

from __future__ import annotations

import json
from pathlib import Path

from rag_metrics.cli import options
from rag_metrics.core.files import Output
from rag_metrics.cli.options import GOLDEN_WORK


AUDIT_FILES = ("review.csv", "findings.csv", "audit.html", "audit.json")
"""What `labels audit` writes into its folder; a person fills review.csv in."""
ACCEPT_SIDES = (".meta.json", ".judgments.jsonl")
"""What `labels accept` writes beside the new golden set."""


def add(sub) -> None:
    lp = sub.add_parser("labels", help="audit a golden set's labels against retrieved pages; accept the pages it missed",
                        description="audit -> review -> accept; sample -> judge -> assess. "
                                    "help(rag_metrics.labels.label_audit), help(rag_metrics.stats.agreement)")
    lsub = lp.add_subparsers(dest="action", required=True, metavar="ACTION")
    _add_audit(lsub)
    _add_assess(lsub)
    _add_sample(lsub)
    _add_accept(lsub)


def _add_audit(lsub) -> None:
    la = lsub.add_parser("audit", help="candidate answer pages, near-duplicate questions, answers on no gold page, "
                                       "gold pages without text",
                         description="For every answerable question: the retrieved pages that are not gold but hold "
                                     "the expected answer (or a long fragment of the gold evidence), ranked and "
                                     "highlighted. Writes DIR/review.csv (decision pending -> accept/reject), "
                                     "DIR/findings.csv, DIR/audit.html and DIR/audit.json.")
    options.golden_inputs(la)
    la.add_argument("--run", action="append", required=True, metavar="LOG", help="retrieval log (repeatable)")
    la.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/audit", metavar="DIR",
                    help=f"folder of the review file and page (default {GOLDEN_WORK}/audit)")
    la.add_argument("-k", type=int, help="audit the top k of each log (default: everything logged)")
    options.log_shape(la)
    la.add_argument("--min-evidence-chars", type=int, default=48,
                    help="shared fragment with the gold evidence that makes a candidate (default 48)")
    la.add_argument("--duplicate-threshold", type=float, default=0.7,
                    help="trigram similarity from which questions are near-duplicates (default 0.7)")
    la.add_argument("--force", action="store_true", help="replace a review file that exists (it may hold decisions)")
    options.files(la, reads=("--golden", "--pages", "--run"),
                  writes=(Output("-o", None, folder=True, files=AUDIT_FILES, precious=("review.csv",)),))


def _add_assess(lsub) -> None:
    ls = lsub.add_parser("assess", help="grade the retrieved pages nobody labelled; measure the assessor against people "
                                        "first; hit@k with assessed labels and prediction-powered",
                         description="An assessor (offline: answer and evidence matching; openai / bedrock: an LLM "
                                     "with a versioned graded-relevance prompt) grades every retrieved top-k page. On "
                                     "the pages people labelled (gold pages, judgments) it is measured: confusion "
                                     "matrix, Cohen's kappa with its interval. Only then, when kappa reaches 0.6 on 20+ "
                                     "items with relevant and not relevant ones among them (or --force), hit@k with "
                                     "assessed labels added is printed, and with --sample its prediction-powered "
                                     "estimate. Writes DIR/assessed.jsonl (assessed labels only, apart from "
                                     "human ones) and DIR/agreement.json. help(rag_metrics.stats.agreement)")
    options.golden_inputs(ls)
    ls.add_argument("--run", required=True, metavar="LOG", help="retrieval log")
    ls.add_argument("--judgments", metavar="FILE", help="human judgments (default: GOLDEN.judgments.jsonl if present)")
    ls.add_argument("--assessor", default="offline", help="offline (default), openai or bedrock")
    options.key_values(ls, help="assessor option (repeatable): model, base_url, region, retries, backoff, "
                                "max_tokens, min_evidence_chars")
    ls.add_argument("-k", type=int, default=5, help="the top k graded and evaluated (default 5)")
    ls.add_argument("-o", "--output", default=f"{GOLDEN_WORK}/assess", metavar="DIR",
                    help=f"folder of the assessed labels (default {GOLDEN_WORK}/assess)")
    options.llm_cost(ls)
    ls.add_argument("--force", action="store_true", help="use an assessor below the stated agreement anyway")
    ls.add_argument("--sample", metavar="SHEET", help="a filled judging sheet (`labels sample`): a random sample of "
                                                      "questions people judged completely; gives the prediction-"
                                                      "powered figure")
    options.files(ls, reads=("--golden", "--pages", "--run", "--judgments", "--sample"),
                  writes=(Output("-o", None, folder=True, files=("agreement.json", "assessed.jsonl")),))


def _add_sample(lsub) -> None:
    lm = lsub.add_parser("sample", help="draw questions at random and list their retrieved pages for people to judge",
                         description="Writes a judging sheet (CSV): n answerable questions drawn at random (seeded) "
                                     "and every page the run retrieved for them in the top k; gold pages pre-marked "
                                     "yes. Mark every other page relevant yes or no, then give the sheet to "
                                     "`labels assess --sample`.")
    options.golden_inputs(lm)
    lm.add_argument("--run", required=True, metavar="LOG", help="retrieval log")
    lm.add_argument("-k", type=int, default=5, help="the top k listed (default 5)")
    options.seeded_sample(lm, n_help="questions drawn (default 30)", output="judging_sheet.csv")
    lm.add_argument("--force", action="store_true", help="replace a sheet that exists (it may hold labels)")
    options.files(lm, reads=("--golden", "--pages", "--run"), writes=(Output("-o", None, precious=("",)),))


def _add_accept(lsub) -> None:
    lc = lsub.add_parser("accept", help="write a new golden set with the accepted pages as gold (who, when, why)")
    lc.add_argument("--golden", required=True, metavar="FILE", help="the golden set that was audited")
    lc.add_argument("--decisions", default=f"{GOLDEN_WORK}/audit/review.csv", metavar="FILE",
                    help=f"the reviewed file (default {GOLDEN_WORK}/audit/review.csv)")
    lc.add_argument("-o", "--output", required=True, metavar="FILE", help="the new golden set (JSON lines)")
    lc.add_argument("--by", required=True, metavar="NAME", help="who reviewed (recorded with every accepted page)")
    lc.add_argument("--pages", metavar="PATH", help="check the pages against these documents")
    options.files(lc, reads=("--golden", "--decisions", "--pages"),
                  writes=(Output("-o", None, files=ACCEPT_SIDES),))


def _audit(args) -> int:
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.labels.label_audit import audit_labels
    from rag_metrics.io.log_presets import parse_field_mapping
    from rag_metrics.io.logs import load_log

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


def _assess(args) -> int:
    from rag_metrics.core.files import publish_files
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.jsonl import jsonl_text
    from rag_metrics.io.logs import load_log
    from rag_metrics.labels.assess import assess_plan, people_judgments, plan_assessment
    from rag_metrics.labels.llm_assessors import load_assessor

    out = Path(args.output)  # its place was checked before the command ran (rag_metrics.cli.main)
    assessor = load_assessor(args.assessor, default_cache=args.cache, **options.parse_options(args.option))
    corpus = load_corpus(args.pages)
    golden = load_golden(args.golden, corpus=corpus)
    judgments, sample = people_judgments(args.golden, judgments=args.judgments, sheet=args.sample, golden=golden,
                                         corpus=corpus)
    plan = plan_assessment(golden, corpus, load_log(args.run), k=args.k, judgments=judgments, sample=sample)
    head = f"{len(plan.items)} retrieved top-{args.k} pages ({sum(plan.labelled)} labelled by people"
    if hasattr(assessor, "estimate"):
        options.print_cost(assessor.estimate(plan.items, price_in=args.price_in, price_out=args.price_out),
                           f"{head}, graded to measure the assessor): ")
    else:
        print(f"{head}); the {args.assessor} assessor makes no call and costs nothing")
    if args.dry_run:
        return 0
    done = assess_plan(plan, assessor, name=args.assessor, force=args.force)  # any refusal before writing
    agr, labels = done.agreement, done.labels
    publish_files({out / "agreement.json": json.dumps(agr.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n",
                   out / "assessed.jsonl": jsonl_text(labels.to_dict("records"))}, folder=out)
    k = agr.kappa
    kappa = "undefined" if k.kappa is None else f"{k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}]"
    print(f"agreement with people on {agr.n} labelled pages: kappa {kappa}, accuracy {agr.accuracy:.3f}")
    print(agr.confusion.to_string())
    print(agr.verdict)
    print(f"wrote {out / 'assessed.jsonl'}: {len(labels)} assessed label(s) of unlabelled pages "
          f"({int(labels['relevant'].sum()) if len(labels) else 0} relevant), kept apart from the human labels")
    if not done.shown:
        print("figures with assessed labels are not shown: the assessor is refused for headline figures (--force to "
              "see them anyway)")
        return 0
    print(done.figures.table().to_string(float_format=lambda v: f"{v:.3f}"))
    if args.force and not agr.usable:
        print("(forced: the assessor is below the stated agreement)")
    if sample is None:
        print("no prediction-powered figure: give --sample, a random sample of questions people judged completely "
              "(`rag-metrics labels sample`)")
    return 0


def _sample(args) -> int:
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.labels.judging_sheet import judging_sample
    from rag_metrics.golden.review_file import write_review
    from rag_metrics.io.logs import load_log

    if args.seed < 0:
        from rag_metrics.core.errors import InputError

        raise InputError(f"--seed: expected a whole number >= 0, got {args.seed}.")
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


def _accept(args) -> int:
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.labels.decisions import accept_labels, accept_summary, read_audit_decisions

    corpus = load_corpus(args.pages) if args.pages else None
    decisions = read_audit_decisions(args.decisions)
    golden, path, jpath = accept_labels(args.golden, decisions, args.output, by=args.by, corpus=corpus,
                                        decisions_source=args.decisions)
    meta = json.loads(Path(str(path) + ".meta.json").read_text(encoding="utf-8"))
    print("\n".join(accept_summary(meta, args.golden, path, jpath)))
    return 0


ACTIONS = {"audit": _audit, "assess": _assess, "sample": _sample, "accept": _accept}


def run(args) -> int:
    return ACTIONS[args.action](args)
