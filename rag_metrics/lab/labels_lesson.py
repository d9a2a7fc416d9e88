"""Notebook 09's sentences and tables (lesson: labels you can trust): what the label audit recovers, what it cannot,
and how an assessor compares with people.

Each ``*_claim`` function returns the arguments of :func:`rag_metrics.report.kernel.claim`: the condition, the
sentence printed when it holds and the one printed when it does not, and the figures it states. The audit itself
lives in :mod:`rag_metrics.labels.label_audit`, people's decisions in :mod:`rag_metrics.labels.decisions`.
"""

from __future__ import annotations


import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.html import md_escape
from rag_metrics.core.text import counted
from rag_metrics.lab.support_lesson import kind_name

__all__ = ["labelled_beside", "candidates_sentence", "unrecovered_claim", "retriever_misses_claim",
           "accepted_in_labels", "audit_moved_claim", "assessor_against_people_claim", "agreement_by_kind",
           "weakest_kind_claim", "disagreements_claim", "answer_length_claim", "support_set_items",
           "hit_by_kind_figure"]


def labelled_beside(candidates: pd.DataFrame, golden) -> pd.DataFrame:
    """The audit's candidate pages (:attr:`LabelAudit.candidates`) beside the page(s) ``golden`` labels for their
    question, each page named "doc p.N" (several joined with ", "), with human column names: question, expected
    answer, labelled page, retrieved page holding the answer, its rank."""
    def name(frame):
        return frame["doc_id"].astype(str) + " p." + frame["page"].astype(int).astype(str)

    gold = golden.gold_pages
    labelled = name(gold).groupby(gold["question_id"]).agg(", ".join)
    return pd.DataFrame({"question": candidates["question"], "expected answer": candidates["answer"],
                         "labelled page": candidates["question_id"].map(labelled),
                         "retrieved page holding the answer": name(candidates),
                         "its rank": candidates["best_rank"]}).reset_index(drop=True)


def candidates_sentence(candidates: pd.DataFrame, shown: int, min_evidence_chars: int) -> str:
    """How many candidate pages the audit listed (:attr:`LabelAudit.candidates`), how many hold the expected answer
    and how many only share ``min_evidence_chars`` characters with the gold evidence, and that the first ``shown``
    are in the table above."""
    n, holding = len(candidates), int(candidates["answer_found"].sum())
    first = f"the first {shown} above" if n > shown else ("it is above" if n == 1 else "all of them above")
    if n == 0:
        return "The audit lists no candidate page: every page it read is labelled or lacks the expected answer."
    if holding == n:
        return (f"{counted(n, 'candidate page')}, {'holding' if n == 1 else 'each holding'} the expected answer; "
                f"{first}.")
    return (f"{counted(n, 'candidate page')}: {holding} {'holds' if holding == 1 else 'hold'} the expected answer, "
            f"{n - holding} only {'shares' if n - holding == 1 else 'share'} at least {min_evidence_chars} characters "
            f"with the gold evidence (rejected below); {first}.")


def _named_questions(rows: pd.DataFrame) -> tuple[str, str]:
    """The kinds of the questions in ``rows`` (sorted, "multi-hop" style) and up to three of them named with their
    expected answers, escaped for Markdown, followed by " and more" when there are more than three: what the audit's
    question sentences print."""
    kinds = ", ".join(sorted({str(t).replace("_", "-") for t in rows["type"]}))
    named = "; ".join(f'"{md_escape(q)}" (expected answer: "{md_escape(a)}")'
                      for q, a in zip(rows["question"].head(3), rows["answer"].head(3)))
    return kinds, named + ("" if len(rows) <= 3 else " and more")


def unrecovered_claim(per_question: pd.DataFrame, questions: pd.DataFrame, k: int) -> dict:
    """The questions the audit cannot recover, as :func:`rag_metrics.report.kernel.claim`'s arguments:
    ``per_question`` holds hit@k per question (index: question ID) under the columns "after the audit" and
    "complete labels"; ``questions`` (index: question ID) gives each one's question, type and expected answer. A
    question is unrecovered when the complete labels count a hit the audited labels do not: a page that answers it
    is in the top ``k``, but the audit did not propose it, because the expected answer does not occur on it as
    written. Up to three are named (question text escaped)."""
    lost = per_question.index[per_question["after the audit"] < per_question["complete labels"]].tolist()
    kinds, named = _named_questions(questions.loc[lost])
    return {
        "condition": len(lost) > 0,
        "text_if_true": (f"The audit cannot recover {counted(len(lost), 'question')} ({kinds}): {named}. "
                         f"A page that answers "
                         f"{'it' if len(lost) == 1 else 'each'} is in the top {k}, but the expected answer is not "
                         "written word for word on it, so only a person reading the page can accept it."
                         if lost else ""),
        "text_if_false": "The audit recovers every question the complete labels count as a hit.",
        "name": "unrecovered",
        "figures": {"questions": [str(q) for q in lost], "k": k},
    }


def retriever_misses_claim(per_question: pd.DataFrame, questions: pd.DataFrame, k: int) -> dict:
    """The questions missed even with the complete labels -- the retriever's real failures, what remains to blame once
    the labels are complete -- as :func:`rag_metrics.report.kernel.claim`'s arguments: ``per_question`` holds hit@k
    per question (index: question ID) under "complete labels"; ``questions`` (index: question ID) gives each one's
    question, type and expected answer. Up to three are named (question text escaped); nothing is shown when the
    complete labels count a hit on every question."""
    missed = per_question.index[per_question["complete labels"] <= 0].tolist()
    kinds, named = _named_questions(questions.loc[missed])
    return {
        "condition": len(missed) > 0,
        "text_if_true": (f"Even with complete labels the retriever misses {counted(len(missed), 'question')} "
                         f"({kinds}): {named}. None of the pages "
                         f"the complete labels list for {'it' if len(missed) == 1 else 'them'} is in the top {k}: that is the retriever's real "
                         "failure, and what remains to blame." if missed else ""),
        "text_if_false": None,
        "name": "retriever_misses",
        "figures": {"questions": [str(q) for q in missed], "k": k},
    }


def accepted_in_labels(candidates: pd.DataFrame, golden) -> int:
    """How many of the audit's accepted candidate pages (:attr:`LabelAudit.candidates` rows with ``answer_found``)
    ``golden`` lists as gold pages of the same question: the precision of the accepts, when ``golden`` is complete."""
    accepted = candidates.loc[candidates["answer_found"].astype(bool), ["question_id", "doc_id", "page"]]
    gold = set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"].astype(int)))
    return sum((q, d, int(p)) in gold for q, d, p in accepted.itertuples(index=False))


def audit_moved_claim(before: float, after: float, truth: float, accepted: int, k: int,
                      confirmed: int | None = None) -> dict:
    """What accepting the audit's pages did to page hit@k on a golden set with missing labels, as
    :func:`rag_metrics.report.kernel.claim`'s arguments. ``before``: hit@k on the incomplete labels; ``after``: with
    the ``accepted`` pages added; ``truth``: with the complete labels. The share of the shortfall closed is
    ``(after - before) / (truth - before)``, capped at 100% (accepted pages the complete labels lack can carry
    ``after`` past ``truth``); with no shortfall (``truth <= before``) the missing labels cost nothing to recover.
    ``confirmed``: how many accepted pages the complete labels list (:func:`accepted_in_labels`), said when given."""
    short = truth - before
    closed = None if short <= 0 else min((after - before) / short, 1.0)
    if closed is None:
        false_text = (f"Here the missing labels cost nothing: page hit@{k} is {before:.3f} with them and {truth:.3f} "
                      f"with the complete labels (the retriever returns the kept page anyway); the audit has "
                      f"nothing to recover.")
    else:
        false_text = (f"Accepting the audit's {counted(accepted, 'page')} leaves page hit@{k} at {after:.3f}, short of the "
                      f"{truth:.3f} the complete labels give: the pages whose labels were dropped were not retrieved "
                      f"in the top {k}, or do not hold the expected answer as written.")
    return {
        "condition": closed is not None and closed > 0,
        "text_if_true": (f"Accepting the audit's {counted(accepted, 'page')} raises page hit@{k} from {before:.3f} to "
                         f"**{after:.3f}**; the complete labels give {truth:.3f}. The audit recovers ({after:.3f} − "
                         f"{before:.3f}) / ({truth:.3f} − {before:.3f}) = **{closed:.0%} of what the missing labels "
                         f"cost**{' (capped at 100%)' if (after - before) > short else ''}, without seeing the "
                         "complete labels: that part of the low figure was never the retriever's fault."
                         + ("" if confirmed is None else f" {confirmed} of the {accepted} accepted pages are in the "
                                                         f"complete labels"
                            + ("." if confirmed == accepted else
                               f"; the other {accepted - confirmed} "
                               f"hold{'s' if accepted - confirmed == 1 else ''} the expected answer word for word on "
                               "a page the hand-written set does not list: candidates for its labels too, for a "
                               "person to confirm, since the stand-in accepts on a string match."))
                         if closed is not None and closed > 0 else ""),
        "text_if_false": false_text,
        "headline": True, "name": "audit_moved",
        "figures": {"before": before, "after": after, "truth": truth, "accepted": accepted, "closed": closed,
                    "confirmed": confirmed},
    }


def assessor_against_people_claim(agreed, n_claims: int) -> dict:
    """Whether an assessor measured against people's labels may fill gaps, as
    :func:`rag_metrics.report.kernel.claim`'s arguments: ``agreed`` is its
    :class:`~rag_metrics.labels.assessor_agreement.Agreement` with the labels, ``n_claims`` the labelled items. Usable
    only when the agreement says so (the package's one rule: enough items of both kinds, and the lower end of kappa's
    interval at or above the bar); the sentence names the interval either way, and says when the point estimate
    clears the bar while the interval's lower end does not."""
    k = agreed.kappa
    interval = (f"kappa {k.kappa:.2f}, 95% interval [{k.low:.2f}, {k.high:.2f}]" if k.kappa is not None
                else "kappa undefined")
    point_only = k.kappa is not None and k.kappa >= agreed.min_kappa > k.low
    return {
        "condition": agreed.usable,
        "text_if_true": (f"Against {n_claims} human labels, the offline assessor clears the bar of "
                         f"{agreed.min_kappa} with its interval's lower end ({interval}): its labels may fill gaps, "
                         "kept apart from people's."),
        "text_if_false": (f"Against {n_claims} human labels, the offline assessor is **refused** "
                          f"({interval}; the bar is {agreed.min_kappa} for the interval's lower end)"
                          + (": the point estimate clears it, the interval does not -- measure it on more labels "
                             "before its labels move a headline figure." if point_only else
                             ": its labels must not fill gaps in a figure.")),
        "name": "assessor_vs_people",
        "figures": {"kappa": k.kappa, "low": k.low, "high": k.high, "usable": agreed.usable,
                    "min_kappa": agreed.min_kappa, "n": agreed.n, "min_items": agreed.min_items},
    }


def agreement_by_kind(agreed, claims: pd.DataFrame) -> pd.DataFrame:
    """Per kind of labelled claim (``claims``: claim_id, kind): how many, how many people call supported, and the
    share on which the assessor agrees with people -- worst first. ``agreed.items`` keys each item by its claim ID
    (:func:`support_set_items`)."""
    both = agreed.items.merge(claims[["claim_id", "kind"]], left_on="question_id", right_on="claim_id")
    both = both.assign(agree=both["relevant"].astype(bool) == both["assessed_relevant"].astype(bool))
    table = both.groupby("kind").agg(claims=("agree", "size"), supported=("relevant", "sum"),
                                     agree=("agree", "mean"))
    table = table.astype({"claims": int, "supported": int, "agree": float})
    return table.sort_values(["agree", "claims"], ascending=[True, False], kind="stable")


def weakest_kind_claim(table: pd.DataFrame) -> dict:
    """The kind of claim the assessor gets wrong most often (``table``: :func:`agreement_by_kind`), as
    :func:`rag_metrics.report.kernel.claim`'s arguments: named only when it agrees with people less often there
    than on every other kind."""
    worst, agree = table.index[0], float(table["agree"].iloc[0])
    rest = float(table["agree"].iloc[1:].min()) if len(table) > 1 else None
    n, supported = int(table["claims"].iloc[0]), int(table["supported"].iloc[0])
    return {
        "condition": rest is not None and agree < rest,
        "text_if_true": (f"It is weakest on **{kind_name(worst)}** claims: it agrees with people on "
                         f"{agree:.0%} of the {n} "
                         f"({supported} of them supported) -- it matches words, so where the page says the same "
                         "thing in other words it calls the page not relevant."),
        "text_if_false": (f"No kind of claim stands out: the lowest agreement, {agree:.0%} on {kind_name(worst)}, is shared."
                          if rest is not None else f"One kind of claim only ({kind_name(worst)}): agreement {agree:.0%}."),
        "name": "weakest_kind",
        "figures": {"worst": str(worst), "agree": agree, "rest": rest, "table": table["agree"].to_dict()},
    }


def disagreements_claim(agreed) -> dict:
    """Which way an assessor's disagreements with people go, and what that means for filling gaps with its labels,
    as :func:`rag_metrics.report.kernel.claim`'s arguments (``agreed``: its
    :class:`~rag_metrics.labels.assessor_agreement.Agreement`). The condition: every disagreement is a miss (people:
    relevant, assessor: not) -- it never accepts a page people reject."""
    people = agreed.items["relevant"].astype(bool)
    said = agreed.items["assessed_relevant"].astype(bool)
    tp, fn = int((people & said).sum()), int((people & ~said).sum())
    fp, tn = int((~people & said).sum()), int((~people & ~said).sum())
    misses = f"{fn} {'miss' if fn == 1 else 'misses'}"
    if fn == 0 and fp == 0:
        false_text = f"It agrees with people on all {agreed.n} items: no miss, no false accept."
    elif fn == 0:
        false_text = (f"Every disagreement is a false accept ({fp}; people: not relevant, assessor: relevant); it "
                      f"never misses a page people accept. Gaps filled with it would be over-filled -- hit@k biased "
                      f"up -- so check the precision of its accepts ({tp} of {tp + fp} right) beside kappa.")
    else:
        false_text = (f"Its disagreements go both ways: {misses} (people: relevant, assessor: not) and "
                      f"{counted(fp, 'false accept')} (the reverse), so {tp} of its {tp + fp} accepts are right. Gaps "
                      "filled with it can bias hit@k either way: kappa, which counts both errors, is the gate.")
    return {
        "condition": fp == 0 and fn > 0,
        "text_if_true": ("This is which way the rule errs here: it misses. "
                         f"Every disagreement is a miss ({counted(fn, 'item')} people call relevant and the assessor "
                         f"does not); on these {agreed.n} claims it accepted no page people reject (0 of {tn}), so "
                         + (f"{'the one item' if tp == 1 else f'all {tp} items'} it accepts {'is' if tp == 1 else 'are'}"
                            " right. " if tp else "it accepts nothing. ")
                         + "Gaps filled with it would be under-filled on such items -- hit@k biased down. Kappa is "
                           "still the gate, since a figure biased down is still wrong; beside it, check the precision "
                           "of its accepts, the rate that says whether its labels can inflate a figure."
                         if fp == 0 and fn > 0 else ""),
        "text_if_false": false_text,
        "name": "disagreements",
        "figures": {"both_relevant": tp, "missed": fn, "false_accepts": fp, "both_not": tn, "n": agreed.n},
    }


def answer_length_claim(claims: pd.Series, answers: pd.Series) -> dict:
    """Whether the claims handed to a word matcher as expected answers are much longer than a golden set's answers
    (median words, at least twice), as :func:`rag_metrics.report.kernel.claim`'s arguments: a whole sentence occurs
    word for word on a page far less often than a short answer, so the matcher's misses then partly reflect the
    set-up."""
    def median_words(texts: pd.Series) -> float:  # a missing text is left out, on every pandas (2.x: astype(str) -> "None")
        return float(texts.dropna().astype(str).str.split().str.len().median())

    claim_words, answer_words = median_words(claims), median_words(answers)
    longer = claim_words >= 2 * answer_words
    return {
        "condition": longer,
        "text_if_true": (f"Mind the set-up: each claim goes to the matcher whole, as its expected answer -- a median of "
                         f"{claim_words:g} words, against {answer_words:g} for part 1's answers -- and a whole "
                         "sentence occurs word for word far less often than a short answer. These figures are the "
                         "rule's agreement on whole sentences; how it fares on part 1's short answers this set does "
                         "not measure."
                         if longer else ""),
        "text_if_false": (f"The claims are about as short as part 1's answers (a median of {claim_words:g} words "
                          f"against {answer_words:g}): the matcher is tested on inputs like the golden set's."),
        "name": "answer_length",
        "figures": {"claim_words": claim_words, "answer_words": answer_words},
    }


def support_set_items(claims: pd.DataFrame, corpus) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A labelled support set (:func:`rag_metrics.experiment.answer_support.read_support_set`) read as page labels: each
    claim is one item whose expected answer is the claim and whose page is its context (pages joined), keyed by
    (claim_id, first context page). Returns the items for
    :func:`~rag_metrics.labels.assessors.assess_items` and the people's labels (relevant = supported) for
    :func:`~rag_metrics.labels.assessor_agreement.agreement`."""
    texts = {(d, int(p)): t for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
    rows, people = [], []
    for cid, claim_, ctx, supported in zip(claims["claim_id"], claims["claim"], claims["context"],
                                           claims["supported"]):
        missing = [f"{d} p.{p}" for d, p in ctx if (d, int(p)) not in texts]
        if missing:
            raise InputError(f"support_set_items: claim {cid} names context page(s) not in the corpus: {missing}.")
        doc, page = ctx[0]
        rows.append({"question_id": cid, "doc_id": doc, "page": int(page), "question": claim_, "answer": claim_,
                     "text": "\n\n".join(texts[d, int(p)] for d, p in ctx)})
        people.append({"question_id": cid, "doc_id": doc, "page": int(page), "relevant": bool(supported),
                       "source": "people"})
    return pd.DataFrame(rows), pd.DataFrame(people)


def hit_by_kind_figure(per_question: pd.DataFrame, kind, *, retriever: str, k: int):
    """Notebook 09's figure: page hit@k of the same run under each set of labels (``per_question``: one column per
    set), by question type (``kind``: each question's type, aligned with its rows) and over all questions, as
    horizontal bars. Returns the figure."""
    import matplotlib.pyplot as plt

    by_kind = per_question.groupby(kind).mean()
    by_kind.index = [f"{t} ({n})" for t, n in pd.Series(kind).value_counts().reindex(by_kind.index).items()]
    by_kind.loc[f"all questions ({len(per_question)})"] = per_question.mean()
    ax = by_kind.iloc[::-1].plot.barh(figsize=(7.5, 3.4), color=["tab:red", "tab:blue", "tab:gray"], width=0.8)
    ax.set_xlabel(f"page hit@{k} of the same {retriever} run")
    ax.set_ylabel("question type (questions)")
    ax.set_xlim(0, 1)
    ax.set_title("The retriever did not change; the labels did")
    handles, names = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], names[::-1], loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the bars, in reading order
    plt.tight_layout()
    return ax.figure
