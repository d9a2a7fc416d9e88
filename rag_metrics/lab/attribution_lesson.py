"""The sentences of lesson 05 (retrieval failures vs generation failures), chosen from its numbers.

Each function returns the lesson's claims as dicts of :func:`rag_metrics.report.kernel.claim`'s arguments
(``condition``, ``text_if_true``, ``text_if_false``, ``headline``, ``name``, ``figures``): the notebook calls
``claim(**c)`` for each, so the branching that picks a sentence is here, tested by value
(tests/test_attribution_lesson.py), and every sentence -- the alternative included -- is true of the figures it carries.

The source's case: three questions, one gold document each, mean Recall@2 = answer accuracy = 0.667, statuses
``passed`` / ``retrieval_failure`` / ``generation_failure`` in its three-status taxonomy, where a question whose
Recall@k is below 1.0 is a retrieval failure (this package's ``rule="all"``, the default).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.experiment.attribution import Attribution, partial_retrieval

__all__ = ["SOURCE_FIGURES", "SOURCE_STATUSES", "seed_cases", "seed_claims", "rule_claims", "sample_claims",
           "rule_moves", "diagnosis_table", "failure_overlap", "STATUS_LABELS"]

SOURCE_FIGURES = {"mean Recall@2": 0.667, "answer accuracy": 0.667}
"""The source's two averages, three decimals as it reports them."""
SOURCE_STATUSES = {"q1": "passed", "q2": "retrieval_failure", "q3": "generation_failure"}
"""The source's statuses of its three questions (three-status taxonomy)."""


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
    statuses3 = {q: ("retrieval_failure" if s == "correct_without_evidence" else s) for q, s in rec["status"].items()}
    recall, accuracy = seed.mean_recall, seed.answer_accuracy
    reproduced = ([round(recall, 3), round(accuracy, 3)] == list(SOURCE_FIGURES.values())
                  and statuses3 == SOURCE_STATUSES)
    missed = rec.index[~rec["retrieval_ok"]].tolist()
    wrong = rec.index[~rec["answer_ok"]].tolist()
    apart = recall == accuracy and not set(missed) & set(wrong) and missed and wrong
    return [
        _claim(reproduced, "The source's three questions give its figures (the table above), and in "
               "its three-status count q1 passes, q2 is a retrieval failure and q3 a generation failure.",
               name="source_reproduced", figures={"recall": recall, "accuracy": accuracy, "statuses3": statuses3,
                                                  "source": list(SOURCE_FIGURES.values())}),
        _claim(apart, f"Both averages are {recall:.3f}, yet they fail on different questions: retrieval on "
               f"{_ids(missed)}, the answer on {_ids(wrong)}. Improving the retriever would not fix "
               f"{', '.join(wrong)}; tuning the prompt would not fix {', '.join(missed)}.",
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
                  "q2's answer is right (`翌月５日`, with a full-width digit, matches `翌月5日` after normalization) "
                  "although no gold document was in its context: memory, or a page nobody labelled gold (notebook 11 "
                  "finds the FAQ page that states it). The source files q2 as a retrieval failure; this notebook "
                  "keeps it apart as `correct_without_evidence`.",
                  f"q2 is `{q2['status']}` here: its answer is {'right' if q2['answer_ok'] else 'wrong'} with "
                  f"hit@{seed.k} = {float(q2[f'hit@{seed.k}']):.0f}.",
                  name="q2_no_gold", figures={"answer_ok": bool(q2["answer_ok"]),
                                              "hit": float(q2[f"hit@{seed.k}"]), "status": q2["status"]})


def rule_claims(strict: Attribution, loose: Attribution, question: str = "q1") -> list[dict]:
    """What the rule decides, on the seed with a second gold document for ``question``: under ``"all"`` a right
    answer with one of its two gold documents in the context is ``correct_without_evidence``; under ``"any"`` it
    passes."""
    s, l = strict.records.at[question, "status"], loose.records.at[question, "status"]
    hit = float(strict.records.at[question, f"hit@{strict.k}"])
    n_gold = int(strict.records.at[question, "n_gold"])
    parts = s == "correct_without_evidence" and l == "passed" and hit == 1.0
    return [_claim(
        parts,
        f"Give {question} a second gold document that its top {strict.k} misses: under `rule='all'` -- the source's "
        f"rule, Recall@{strict.k} < 1 is a retrieval failure -- {question} becomes `{s}` although the document that "
        f"holds its answer is in the context; under `rule='any'` it stays `{l}`. The two rules agree on the source's "
        "three questions (one gold document each) and part only on a question with several.",
        f"With {_n(n_gold, 'gold document')}, {question} is `{s}` under `rule='all'` and `{l}` under `rule='any'`.",
        name="rules_part_on_two_gold", figures={"all": s, "any": l, "hit": hit, "n_gold": n_gold})]


def sample_claims(attr: Attribution, strict: Attribution, *, check: list, generation_failures: int,
                  faithful_failures: int, faithfulness_threshold: float) -> list[dict]:
    """The sample golden set's claims. ``attr``: the attribution at the notebook's rule, judged at the logged
    context; ``strict``: the same at ``rule="all"`` (the source's rule), from which the partial retrievals are
    counted; ``check``: the questions diagnosed "check the expected answer"."""
    rec, kk = attr.records, attr.k
    missed = set(rec.index[~rec["retrieval_ok"]])
    wrong = set(rec.index[~rec["answer_ok"]])
    both = missed & wrong
    counts, three = attr.status_counts, attr.three_status_counts()
    failed_words = ("a gold document missing from" if attr.rule == "all" else "no gold document in")
    p = partial_retrieval(strict)
    srec = strict.records
    right_partial = srec.index[(srec["status"] == "correct_without_evidence") & (srec[f"hit@{strict.k}"] == 1.0)]
    with_top = int(srec.loc[right_partial, "top_gold_retrieved"].sum()) if "top_gold_retrieved" in srec else 0
    claims = [
        _claim(missed != wrong,
               f"The two averages hide different failures here too: with `rule='{attr.rule}'` retrieval failed "
               f"({failed_words} the top {kk}) on {_n(len(missed), 'question')}, the answer on "
               f"{_n(len(wrong), 'question')}, and {len(both)} {'is' if len(both) == 1 else 'are'} on both lists.",
               f"With `rule='{attr.rule}'` retrieval failed ({failed_words} the top {kk}) on exactly the "
               f"{_n(len(missed), 'question')} whose answer was wrong.",
               headline=True, name="sample_failures_differ",
               figures={"retrieval_failed": len(missed), "answer_failed": len(wrong), "both": len(both),
                        "counts": counts, "three": three, "n": len(rec), "rule": attr.rule}),
    ]
    if p["right"] == 0:
        alternative = (f"Under the source's rule (`all`) no right answer here counts as a retrieval failure: every "
                       f"right answer had every gold document in the top {strict.k}.")
    else:
        alternative = (f"Under the source's rule (`all`) {_n(p['right'], 'right answer')} "
                       f"{'counts' if p['right'] == 1 else 'count'} as retrieval failures, and none had a gold "
                       f"document in the top {strict.k}: here the status means what its name says -- an answer "
                       "made without its evidence.")
    claims.append(_claim(
        p["right_partial"] > 0,
        f"Under the source's rule (`all`: Recall@{strict.k} < 1 is a retrieval failure) {_n(p['right'], 'right answer')} "
        f"count as retrieval failures, yet "
        + (f"{p['right_partial']} of them had the gold document that holds the answer (the highest-labelled one) in "
           f"the top {strict.k}" if with_top == p["right_partial"] else
           f"{p['right_partial']} of them had a gold document in the top {strict.k} ({with_top} of them the one that "
           "holds the answer, the highest-labelled gold)")
        + f"; {p['right_none']} had no gold document there. Under this "
        "rule a retrieval failure means *a gold document missing*, not *an answer without evidence*: it asks for "
        "every gold document in the context -- what a multi-document answer needs, and more than an answer held by "
        f"one document does. `rule='any'` files those {p['right_partial']} as passed.",
        alternative, name="partial_retrieval",
        figures={**p, "with_top": with_top, "k": strict.k}))
    claims.append(_claim(
        check,
        "Read the \"check the expected answer\" group first: every gold document the rule asks for was retrieved "
        f"and the logged faithfulness score calls the answer faithful (≥ {faithfulness_threshold}), yet it disagrees "
        "with the expected answer.",
        f"With rule={attr.rule!r}, match={attr.match!r} and faithfulness threshold {faithfulness_threshold} no "
        "question lands in \"check the expected answer\": every generation failure here has an answer unfaithful "
        "to its context." if generation_failures else
        f"With rule={attr.rule!r} and match={attr.match!r} no answer is a generation failure, so none lands in "
        "\"check the expected answer\".",
        name="check_group", figures={"check": list(check), "generation_failures": generation_failures,
                                     "faithful_failures": faithful_failures}))
    return claims


def rule_moves(strict: Attribution, loose: Attribution) -> dict:
    """What ``rule="any"`` changes against ``rule="all"`` on the same answers: right answers moved from
    ``correct_without_evidence`` to ``passed`` and wrong ones from ``retrieval_failure`` to ``generation_failure``
    (another gold document was in the context); ``title``: the figure's title, naming only the moves that happen."""
    a, b = strict.records["status"], loose.records["status"].reindex(strict.records.index)
    right = int(((a == "correct_without_evidence") & (b == "passed")).sum())
    wrong = int(((a == "retrieval_failure") & (b == "generation_failure")).sum())
    parts = ([f"{right} right answers to passed"] if right else []) + \
        ([f"{wrong} retrieval failures to generation failures"] if wrong else [])
    title = ("rule='any' moves " + " and ".join(parts)) if parts else "the two rules give the same statuses"
    text = (f"Under `rule='any'` {_n(right, 'right answer')} with a gold document in the context "
            f"{'moves' if right == 1 else 'move'} from `correct_without_evidence` to `passed`, and "
            f"{_n(wrong, 'wrong answer')} from `retrieval_failure` to `generation_failure`: another gold document was "
            "in the context, so the rule that forgives the retriever blames the generator."
            if wrong else
            f"Under `rule='any'` {_n(right, 'right answer')} with a gold document in the context "
            f"{'moves' if right == 1 else 'move'} to `passed`; no wrong answer changes status (none had a gold "
            "document in the context while another was missing).")
    return {"right": right, "wrong": wrong, "title": title,
            "claim": _claim(wrong > 0, text, text, name="rule_moves_wrong", figures={"right": right, "wrong": wrong})}



STATUS_LABELS = {
    "all": {"passed": "passed", "retrieval_failure": "retrieval failure (a gold document missing, answer wrong)",
            "generation_failure": "generation failure (every gold document there, answer wrong)",
            "correct_without_evidence": "right answer, not every gold document retrieved"},
    "any": {"passed": "passed", "retrieval_failure": "retrieval failure (no gold document there, answer wrong)",
            "generation_failure": "generation failure (a gold document there, answer wrong)",
            "correct_without_evidence": "right answer, no gold document there"},
}
"""The displayed label of each status under each rule: the label says the rule, the identifier stays the package's."""


def failure_overlap(attr: Attribution) -> dict:
    """The two failure lists of the main pitfall: questions whose retrieval failed (by the attribution's rule), whose
    answer is wrong, and how many are on both."""
    rec = attr.records
    missed, wrong = set(rec.index[~rec["retrieval_ok"]]), set(rec.index[~rec["answer_ok"]])
    return {"retrieval failed only": len(missed - wrong), "both": len(missed & wrong),
            "answer wrong only": len(wrong - missed), "retrieval failed": len(missed), "answer wrong": len(wrong)}


def diagnosis_table(diag: pd.DataFrame, attr: Attribution) -> pd.DataFrame:
    """Questions per place to look, with the retrieval failures split by whether another gold document was in the
    context (hit@k = 1, possible under ``rule="all"`` only), most first. Columns: "where to look", "questions"."""
    look = diag["look_at"].copy()
    failed = diag["status"] == "retrieval_failure"
    some = attr.records[f"hit@{attr.k}"].reindex(diag.index) == 1.0
    look[failed & some] = ("retrieval: a gold document is missing from the context, another was there, and the "
                           "answer is wrong (the generator may share the blame)")
    look[failed & ~some] = "retrieval: no gold document in the context, answer wrong (chunking, embeddings, hybrid search)"
    counts = look.value_counts()
    return (pd.DataFrame({"where to look": counts.index, "questions": counts.to_numpy()})
            .sort_values(["questions", "where to look"], ascending=[False, True], kind="stable", ignore_index=True))
