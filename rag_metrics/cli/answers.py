"""`rag-metrics answers`: judge logged answers (claim support in the context, correctness, diagnosis); sample ->
label -> assess the support judge on a team's own answers (:mod:`rag_metrics.experiment.answer_support`)."""

from __future__ import annotations

import json
from pathlib import Path

from rag_metrics.cli import options
from rag_metrics.core.files import Output
from rag_metrics.core.errors import InputError


_READS = ("--golden", "--pages", "--answers")
_SHEET_SIDES = ()
"""Files `answers sample` writes beside its sheet (suffixes)."""


def add(sub) -> None:
    ap = sub.add_parser("answers", help="judge logged answers: claim support in the context, correctness, diagnosis",
                        description="judge; sample -> label -> assess. help(rag_metrics.experiment.answer_support), "
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
    options.answers_inputs(aj, several=True)
    aj.add_argument("--labels", metavar="FILE", help="a labelled support set (data/support/claims.jsonl for the "
                                                     "sample) to measure the judge against people first")
    aj.add_argument("--force", action="store_true", help="use a judge below the stated agreement anyway")
    aj.add_argument("-o", "--output", metavar="FILE", help="write the diagnosis as JSON")
    options.files(aj, reads=_READS + ("--labels",), writes=(Output("-o", None),))
    am = asub.add_parser("sample", help="draw judged claims at random for people to label supported or not",
                         description="Judges every claim of one generator's answers, then writes a labelling sheet "
                                     "(CSV): n judged claims drawn at random (seeded) with their question, the items "
                                     "the answer was made from and the span the judge found; the judge's verdict is "
                                     "not shown. Mark every row supported yes or no (kind and why optional), then "
                                     "give the sheet to `answers assess --sheet`.")
    options.answers_inputs(am, several=False)
    options.seeded_sample(am, n_help="claims drawn (default 30)", output="support_sheet.csv")
    am.add_argument("--force", action="store_true", help="replace a sheet that exists (it may hold labels)")
    options.files(am, reads=_READS, writes=(Output("-o", None, files=_SHEET_SIDES, precious=("",)),))
    aa = asub.add_parser("assess", help="the judge against the people's labels of a sheet; the supported-claim rate, "
                                        "prediction-powered",
                         description="Judges the claims again as `answers sample` did (same options), reads the "
                                     "filled sheet and prints the judge's agreement with people (Cohen's kappa with "
                                     "its interval, per kind where the sheet names kinds) and the supported-claim "
                                     "rate over every judged claim: the judge's alone, the people's sample alone, "
                                     "and prediction-powered. Exit 2 on a bad sheet, before anything is written.")
    options.answers_inputs(aa, several=False)
    aa.add_argument("--sheet", required=True, metavar="FILE", help="the filled sheet of `answers sample`")
    aa.add_argument("-o", "--output", metavar="FILE", help="write the agreement and the rates as JSON")
    options.files(aa, reads=_READS + ("--sheet",), writes=(Output("-o", None),))


def _judged_answers(args):
    """``(golden, corpus, [(generator, answers)], judge)`` of an `answers` action."""
    from rag_metrics.experiment.answer_support import answer_runs, check_logged_answers
    from rag_metrics.io.corpus import load_answers, load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.answers.support_llm import load_judge

    if args.context_k < 1:
        raise InputError(f"--context-k: expected a whole number >= 1, got {args.context_k}.")
    corpus = load_corpus(args.pages)
    golden = load_golden(args.golden, corpus=corpus)
    several = isinstance(args.generator, list)
    given = args.generator if several else [g for g in [args.generator] if g is not None]
    runs = answer_runs(load_answers(args.answers), given, source=args.answers, pair=several)
    for _, frame in runs:  # every answer and its context checked against the documents before any is judged
        check_logged_answers(golden, frame, corpus, source=args.answers)
    judge = load_judge(args.support_judge, cache_dir=args.cache, **options.parse_options(args.option))
    return golden, corpus, runs, judge


def _judge_cost(args, judge, tasks) -> bool:
    """Print what an LLM judge would be asked before any call; False when ``--dry-run`` stops there."""
    if not hasattr(judge, "estimate"):
        return True
    options.print_cost(judge.estimate(tasks, price_in=args.price_in, price_out=args.price_out), "")
    return not args.dry_run


def _json_output(path) -> Path | None:
    if path is None:  # its place was checked before the command ran (rag_metrics.cli.main)
        return None
    out = Path(path)
    if out.suffix != ".json":
        raise InputError(f"-o {out}: expected a .json file.")
    return out


def _judge(args) -> int:
    from rag_metrics.core.files import write_json
    from rag_metrics.experiment.answer_support import (diagnose_answers, diagnosis_change, judge_tasks, measure_judges,
                                                       read_support_set, support_set_tasks)

    out = _json_output(args.output)
    golden, corpus, runs, judge = _judged_answers(args)
    labels = read_support_set(args.labels, corpus=corpus) if args.labels else None
    if hasattr(judge, "estimate"):
        tasks = [t for _, frame in runs for t in judge_tasks(golden, frame, corpus, context_k=args.context_k)]
        if labels is not None:
            tasks += support_set_tasks(labels, corpus)
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
        print(f"wrote {write_json(out, report)}")
    return 0


def _sheet(args) -> int:
    """`answers sample` and `answers assess`: one generator's claims judged, then a sheet written or read."""
    from rag_metrics.core.files import write_json
    from rag_metrics.experiment.answer_support import sheet_agreement
    from rag_metrics.labels.support_sheet import (claim_tasks, claims_sample, judge_claims, read_support_sheet,
                                                  write_support_sheet)

    if args.action == "sample":
        if args.n < 2:
            raise InputError(f"-n: expected a whole number >= 2 (a sheet of one claim measures nothing), got {args.n}.")
        if args.seed < 0:
            raise InputError(f"--seed: expected a whole number >= 0, got {args.seed}.")
    out = _json_output(args.output) if args.action == "assess" else None
    golden, corpus, runs, judge = _judged_answers(args)
    (name, frame), = runs
    if hasattr(judge, "estimate") and not _judge_cost(args, judge, claim_tasks(golden, frame, corpus,
                                                                              context_k=args.context_k)):
        return 0
    diagnosis, judged = judge_claims(golden, frame, corpus, judge, context_k=args.context_k)
    settings = {"generator": name, "context_k": args.context_k, "judge": args.support_judge}
    if args.action == "sample":
        sheet = claims_sample(diagnosis, golden.questions["question"], args.n, seed=args.seed)
        write_support_sheet(sheet, args.output, settings=settings)
        print(f"wrote {args.output}: {len(sheet)} of {len(judged)} judged claims of {name} drawn at random (seed "
              f"{args.seed}) from {sheet['question_id'].nunique()} questions; mark every row supported yes or no "
              "against the whole context (the judge's verdict is not shown), then `rag-metrics answers assess "
              "--sheet`")
        return 0
    labels = read_support_sheet(args.sheet, judged, settings=settings)
    if not labels.attrs.get("settings_checked"):
        print(f"{args.sheet} does not record the settings it was drawn with (a sheet written before they were): its "
              "generator, --context-k and --judge are taken to be these, unchecked")
    labels = labels.set_index("claim_id")
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
        report = {"generator": name, "sheet": str(args.sheet), "context_k": args.context_k, **result.to_dict()}
        print(f"wrote {write_json(out, report)}")
    return 0


def run(args) -> int:
    return _sheet(args) if args.action in ("sample", "assess") else _judge(args)
