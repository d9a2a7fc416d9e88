"""The sentences of lesson 05 (retrieval failures vs generation failures), chosen from its numbers.

Each function returns the lesson's claims as dicts of :func:`rag_metrics.report.kernel.claim`'s arguments
(``condition``, ``text_if_true``, ``text_if_false``, ``headline``, ``name``, ``figures``): the notebook calls
``claim(**c)`` for each, so the branching that picks a sentence is here, tested by value
(tests/test_attribution_lesson.py), and every sentence -- the alternative included -- is true of the figures it carries.

The source's case: three questions, one gold document each, mean Recall@2 = answer accuracy = 0.667, which it calls
passed / retrieval failure / generation failure in a three-status taxonomy where a question whose Recall@k is below
1.0 is a retrieval failure (this package's ``rule="all"``, the default; its three statuses are
:meth:`~rag_metrics.experiment.attribution.Attribution.three_status_counts`'s ``passed`` / ``gold_missed`` /
``gold_found_answer_wrong``).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.experiment.attribution import (STATUSES, Attribution, attribute, join_answers, logged_context_k,
                                                partial_retrieval, run_from_logs)
from rag_metrics.report.kernel import record

__all__ = ["SOURCE_FIGURES", "SOURCE_STATUSES", "SOURCE_WORDS", "THREE", "SAMPLE_SETTINGS", "seed_cases",
           "seed_claims", "rule_claims", "sample_attributions", "sample_claims", "other_rule_claim",
           "rule_status_table", "failure_overlap", "failure_overlap_figure"]

SOURCE_FIGURES = {"mean Recall@2": 0.667, "answer accuracy": 0.667}
"""The source's two averages, three decimals as it reports them."""
SOURCE_STATUSES = {"q1": "passed", "q2": "gold_missed", "q3": "gold_found_answer_wrong"}
"""The source's statuses of its three questions, in this package's three-status names."""
SOURCE_WORDS = {"passed": "passed", "gold_missed": "retrieval failure", "gold_found_answer_wrong": "generation failure"}
"""What the source calls each of the three statuses."""
THREE = {"passed": "passed", "gold_missed_answer_right": "gold_missed", "gold_missed_answer_wrong": "gold_missed",
         "gold_found_answer_wrong": "gold_found_answer_wrong"}
"""Each status's three-status name (a right answer with gold missed joins ``gold_missed``)."""
SAMPLE_SETTINGS = {"corpus_version": "sample-2026-04", "chunking": "fixed 400/100 chars, bm25"}
"""What the sample answers' log was made with, recorded in each attribution."""


def seed_cases(*, second_gold: bool = False) -> pd.DataFrame:
    """The source's three questions; with ``second_gold``, q1 also has ``faq`` as gold -- a document its top 2 misses
    while the one holding its answer (``expense_policy``) is there."""
    return pd.DataFrame({
        "question_id": ["q1", "q2", "q3"],
        "expected_answer": ["30 days", "翌月5日", "200 EUR"],
        "gold_ids": [["expense_policy", "faq"] if second_gold else ["expense_policy"], ["faq"], ["travel_policy"]],
        "retrieved_ids": [["expense_policy", "travel_policy"], ["terms", "manual"], ["travel_policy", "faq"]],
        "generated_answer": ["30 days", "翌月５日", "150 EUR"],
    })


def _claim(condition, text_if_true, text_if_false=None, *, name, figures, headline=False) -> dict:
    return {"condition": bool(condition), "text_if_true": text_if_true, "text_if_false": text_if_false,
            "headline": headline, "name": name, "figures": figures}


def _ids(ids) -> str:
    return ", ".join(f"**{q}**" for q in ids) or "no question"


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def seed_claims(seed: Attribution) -> list[dict]:
    """The source's figures reproduced, and its point: two equal averages, failures on different questions."""
    rec = seed.records
    statuses3 = {q: THREE[s] for q, s in rec["status"].items()}
    recall, accuracy = seed.mean_recall, seed.answer_accuracy
    reproduced = ([round(recall, 3), round(accuracy, 3)] == list(SOURCE_FIGURES.values())
                  and statuses3 == SOURCE_STATUSES)
    missed = rec.index[~rec["retrieval_ok"]].tolist()
    wrong = rec.index[~rec["answer_ok"]].tolist()
    apart = recall == accuracy and not set(missed) & set(wrong) and missed and wrong
    return [
        _claim(reproduced, "The three questions give the source's figures and its statuses (the last column).",
               name="source_reproduced", figures={"recall": recall, "accuracy": accuracy, "statuses3": statuses3,
                                                  "source": list(SOURCE_FIGURES.values())}),
        _claim(apart, f"Both averages are {recall:.3f}, yet they fail on different questions: retrieval on "
               f"{_ids(missed)}, the answer on {_ids(wrong)}. {' and '.join(wrong)} "
               f"point{'s' if len(wrong) == 1 else ''} at the generator (or at a stale expected answer); "
               f"{' and '.join(missed)}'s retrieval miss "
               f"did not even hurt {'its answer' if len(missed) == 1 else 'their answers'}.",
               f"Mean Recall@{seed.k} is {recall:.3f} and answer accuracy {accuracy:.3f}; retrieval fails on "
               f"{_ids(missed)} and the answer on {_ids(wrong)}.",
               headline=True, name="same_averages_different_failures",
               figures={"recall": recall, "accuracy": accuracy, "retrieval_missed": missed, "answer_wrong": wrong,
                        "statuses": rec["status"].to_dict()}),
        _q2_claim(seed),
    ]


def _q2_claim(seed: Attribution) -> dict:
    """The source's q2: a right answer with no gold document in its context -- what that does and does not say."""
    q2 = seed.records.loc["q2"]
    no_gold = bool(q2["answer_ok"]) and float(q2[f"hit@{seed.k}"]) == 0.0
    return _claim(no_gold,
                  "q2's answer is right (`翌月５日` matches `翌月5日` once full-width digits are normalized) although no "
                  "gold document was in its context -- memory, or a page nobody labelled gold. The source counts it "
                  "as a retrieval failure; this notebook keeps it apart as `gold_missed_answer_right`.",
                  f"q2 is `{q2['status']}` here: its answer is {'right' if q2['answer_ok'] else 'wrong'} with "
                  f"hit@{seed.k} = {float(q2[f'hit@{seed.k}']):.0f}.",
                  name="q2_no_gold", figures={"answer_ok": bool(q2["answer_ok"]),
                                              "hit": float(q2[f"hit@{seed.k}"]), "status": q2["status"]})


def rule_claims(strict: Attribution, loose: Attribution, question: str = "q1") -> list[dict]:
    """What the rule decides, on the seed with a second gold document for ``question``: under ``"all"`` a right
    answer with one of its two gold documents in the context is ``gold_missed_answer_right``; under ``"any"`` it
    passes."""
    s, l = strict.records.at[question, "status"], loose.records.at[question, "status"]
    hit = float(strict.records.at[question, f"hit@{strict.k}"])
    n_gold = int(strict.records.at[question, "n_gold"])
    parts = s == "gold_missed_answer_right" and l == "passed" and hit == 1.0
    return [_claim(
        parts,
        f"With a second gold document that its top {strict.k} misses, {question} is `{s}` under `rule='all'` "
        f"although the document holding its answer is in the context, and `{l}` under `rule='any'`. The rules agree "
        "on questions with one gold document and part only on questions with several.",
        f"With {_n(n_gold, 'gold document')}, {question} is `{s}` under `rule='all'` and `{l}` under `rule='any'`.",
        name="rules_part_on_two_gold", figures={"all": s, "any": l, "hit": hit, "n_gold": n_gold})]


def sample_attributions(golden, log: pd.DataFrame, *, generator: str, rule: str, match: str):
    """The sample golden set's answers of one ``generator`` (``log``: its rows of the answer log) attributed at the
    logged context (``k`` = the items each answer was made from), under ``rule`` and under both rules; the two headline
    figures (answer accuracy, Recall@k) recorded for the run's summary. Returns ``(attr, strict, loose)``: the
    attribution at ``rule``, at ``"all"`` and at ``"any"``."""
    table, run, context_k = join_answers(golden, log), run_from_logs(log), logged_context_k(log)
    settings = dict(k=context_k, run=run, context_k=context_k, match=match, **SAMPLE_SETTINGS)
    by_rule = {r: attribute(table, rule=r, **settings) for r in ("all", "any")}
    attr = by_rule[rule]
    record(f"answer accuracy ({generator}, {match})", attr.records["answer_ok"].astype(float), echo=False)
    record(f"Recall@{context_k} of gold documents", attr.records[f"recall@{context_k}"], echo=False)
    return attr, by_rule["all"], by_rule["any"]


def other_rule_claim(attr: Attribution, other: Attribution) -> dict:
    """What the failure figure becomes under the other rule: the answer list is the same (the rule judges retrieval
    only); the retrieval list changes unless every question's gold documents are all found or all missed."""
    this, that = failure_overlap(attr), failure_overlap(other)
    a, b = this["retrieval failed"], that["retrieval failed"]
    tail = (f"the answer list stays {this['answer wrong']}, and {that['both']} "
            f"{'is' if that['both'] == 1 else 'are'} on both lists.")
    return _claim(a != b,
                  f"The figure depends on the rule: under `rule='{other.rule}'` the retrieval list "
                  f"{'shrinks' if b < a else 'grows'} from {a} to {_n(b, 'question')}, {tail}",
                  f"Under `rule='{other.rule}'` the figure is the same: retrieval failed on {_n(b, 'question')}, {tail}",
                  name="other_rule_figure", figures={"rule": attr.rule, "other_rule": other.rule, "this": this,
                                                     "other": that})


def sample_claims(attr: Attribution, strict: Attribution) -> list[dict]:
    """The sample golden set's claims. ``attr``: the attribution at the notebook's rule, judged at the logged
    context; ``strict``: the same at ``rule="all"`` (the source's rule), from which the partial retrievals are
    counted."""
    rec, kk = attr.records, attr.k
    missed = set(rec.index[~rec["retrieval_ok"]])
    wrong = set(rec.index[~rec["answer_ok"]])
    both = missed & wrong
    counts, three = attr.status_counts, attr.three_status_counts()
    failed_words = ("a gold document missing from" if attr.rule == "all" else "no gold document in")
    p = partial_retrieval(strict)
    srec = strict.records
    right_partial = srec.index[(srec["status"] == "gold_missed_answer_right") & (srec[f"hit@{strict.k}"] == 1.0)]
    with_top = int(srec.loc[right_partial, "top_gold_retrieved"].sum()) if "top_gold_retrieved" in srec else 0
    wrong_partial = p["partial"] - p["right_partial"]
    claims = [
        _claim(missed != wrong,
               f"The two averages hide different failures here too: with `rule='{attr.rule}'` retrieval failed "
               f"({failed_words} the top {kk}) on {_n(len(missed), 'question')}, the answer on "
               f"{_n(len(wrong), 'question')}, and only {len(both)} {'is' if len(both) == 1 else 'are'} on both lists.",
               f"With `rule='{attr.rule}'` retrieval failed ({failed_words} the top {kk}) on exactly the "
               f"{_n(len(missed), 'question')} whose answer was wrong.",
               headline=True, name="sample_failures_differ",
               figures={"retrieval_failed": len(missed), "answer_failed": len(wrong), "both": len(both),
                        "counts": counts, "three": three, "n": len(rec), "rule": attr.rule}),
    ]
    if p["right"] == 0:
        alternative = (f"Under `rule='all'` no right answer is `gold_missed_answer_right`: every right answer had "
                       f"every gold document in the top {strict.k}.")
    else:
        alternative = (f"Under `rule='all'` {_n(p['right'], 'right answer')} {'is' if p['right'] == 1 else 'are'} "
                       f"`gold_missed_answer_right`, and none had a gold document in the top {strict.k}: the two rules "
                       "agree on them.")
    top = ("the gold document the golden set grades highest for the question -- q001's grades, for example, are "
           "`{expense_policy: 2, onboarding_ja: 1}`")
    which = (f"at least one gold document in the top {strict.k} ({with_top} of these {p['right_partial']} had "
             f"{top})")
    claims.append(_claim(
        p["right_partial"] > 0,
        f"Under `rule='all'` {_n(p['right'], 'right answer')} {'is' if p['right'] == 1 else 'are'} "
        f"`gold_missed_answer_right`, yet {p['right_partial']} of them had {which}; "
        f"`rule='any'` counts those {p['right_partial']} as passed"
        + (f", and moves the {_n(wrong_partial, 'wrong answer')} that had a gold document there to "
           "`gold_found_answer_wrong`" if wrong_partial else "")
        + ". So \"retrieval failed\" is a choice of rule: "
        "`all` asks for what a multi-document answer needs, `any` for what an answer held by one document needs.",
        alternative, name="partial_retrieval",
        figures={**p, "with_top": with_top, "k": strict.k}))
    return claims


def rule_status_table(strict: Attribution, loose: Attribution) -> pd.DataFrame:
    """Questions per status under both rules, the same answers at the same k (index: status; columns "rule='all'",
    "rule='any'")."""
    a, b = strict.status_counts, loose.status_counts
    return pd.DataFrame({"rule='all'": [a[s] for s in STATUSES], "rule='any'": [b[s] for s in STATUSES]},
                        index=pd.Index(list(STATUSES), name="status"))


def failure_overlap(attr: Attribution) -> dict:
    """The two failure lists of the main pitfall: questions whose retrieval failed (by the attribution's rule), whose
    answer is wrong, and how many are on both."""
    rec = attr.records
    missed, wrong = set(rec.index[~rec["retrieval_ok"]]), set(rec.index[~rec["answer_ok"]])
    return {"retrieval failed only": len(missed - wrong), "both": len(missed & wrong),
            "answer wrong only": len(wrong - missed), "retrieval failed": len(missed), "answer wrong": len(wrong)}


def failure_overlap_figure(by_rule: dict, *, title: str):
    """Notebook 05's figure: per rule (``by_rule``: rule -> :class:`Attribution`), one panel with two bars -- the
    questions whose retrieval failed and those whose answer is wrong -- aligned so the questions on both lists share a
    grey band. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(by_rule), 1, figsize=(8, 1.9 * len(by_rule) + 0.4), sharex=True, squeeze=False,
                             layout="constrained")
    overlaps = {rule: failure_overlap(a) for rule, a in by_rule.items()}
    width = max(1, max(o["retrieval failed only"] + o["both"] + o["answer wrong only"] for o in overlaps.values()))
    for ax, (rule, o) in zip(axes[:, 0], overlaps.items()):
        only_r, both, only_w = o["retrieval failed only"], o["both"], o["answer wrong only"]
        ax.barh(1, only_r + both, color="#d1495b")
        ax.barh(0, both + only_w, left=only_r, color="#5b7db1")
        ax.axvspan(only_r, only_r + both, color="grey", alpha=0.25, label=f"on both lists ({both})")
        for y, left, n in ((1, 0, only_r), (1, only_r, both), (0, only_r, both), (0, only_r + both, only_w)):
            if n:
                ax.text(left + n / 2, y, str(n), ha="center", va="center", color="white", fontsize=10)
        ax.set_yticks([0, 1], [f"answer wrong ({o['answer wrong']})", f"retrieval failed ({o['retrieval failed']})"])
        ax.set_title(f"rule={rule!r}: {both} on both lists", fontsize=10)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    axes[-1, 0].set(xlabel="questions (each failing question once)", xlim=(0, width))
    fig.suptitle(title)
    return fig
