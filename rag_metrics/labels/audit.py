"""Labels you can trust: audit a golden set against what retrievers found, and accept the pages it missed.

A golden set built by sampling one page per question (by hand or with :mod:`rag_metrics.golden.generate`) labels
that page; a page of another document that answers the question too is not labelled, and a retriever that returns
it is counted wrong. :func:`audit_labels` looks at every page the runs retrieved for every answerable question and
reports, from the pages' own text (``--pages``):

* **candidate pages** -- retrieved pages that are not gold but contain the expected answer (found as answer matching
  finds it: :func:`~rag_metrics.labels.assessors.find_answer`, normalized, at word boundaries) or share a fragment
  of at least ``min_evidence_chars`` characters with the gold evidence (the sentences of the gold pages that hold the
  answer); ranked -- answer found first, then the longer shared evidence, then the best rank and the number of runs
  that retrieved it -- with the answer and the evidence highlighted on the page;
* **near-duplicate questions** -- pairs whose character-trigram similarity reaches ``duplicate_threshold``
  (:func:`~rag_metrics.golden.flags.near_duplicates`; 1.0 is a duplicate);
* **answers on no gold page** -- answerable questions whose expected answer occurs on none of their gold pages (a
  paraphrased answer, or a wrong page), and questions without an expected answer (which cannot be audited);
* **gold pages without text** -- a scanned page: no text judge can ever find it.

Where a retrieved item lies: :func:`rag_metrics.judging.locate.item_pages` with fragments of ``locate_chars``
characters (its page metadata, else the page(s) of its document sharing the most fragments with its text); an item
placed by neither is counted in ``settings["unplaced_items"]``.

The review file (:func:`write_review` of the golden builder: CSV with a byte-order mark, or JSON lines) has one row
per candidate page (:data:`AUDIT_COLUMNS`), ``decision`` pre-filled ``pending``: a reviewer writes ``accept`` (the
page answers the question: it becomes gold) or ``reject`` (it does not: a human label of non-relevance), and may
fill ``why``, and ``group`` for a question written with evidence groups. :func:`accept_labels` writes a new golden
set (JSON lines) with the accepted pages and their provenance (who, when, why, in each question's
``label_provenance``), every human decision in ``<out>.judgments.jsonl`` (:func:`load_judgments`; carried over from
the input set's own), and ``<out>.meta.json`` with the old and new fingerprints. The golden set's fingerprint changes
with its gold, so the run history keeps runs judged against the old and the new set apart
(:func:`rag_metrics.experiment.history.diff` refuses to compare them).

:func:`labels_summary` gives the judged share (the share of retrieved top-k pages that carry a human label) and the
audit's counts for one run, for the experiment report.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_int
from rag_metrics.core.files import check_output, publish_files
from rag_metrics.io.csvfile import read_rows
from rag_metrics.io.golden import _csv_rows, golden_from_records
from rag_metrics.io.jsonl import iter_jsonl, jsonl_text
from rag_metrics.judging.answers import normalize_answer
from rag_metrics.judging.judges import shared_spans
from rag_metrics.core.html import md_escape
from rag_metrics.core.text import normalize
from rag_metrics.labels.assessors import _folded, answer_sentences, find_answer, retrieved_pages
from rag_metrics.golden.flags import near_duplicates
from rag_metrics.golden.review_file import review_text

__all__ = ["audit_labels", "check_matches", "LabelAudit", "accept_labels", "read_audit_decisions", "load_judgments", "labels_summary",
           "human_labels", "with_evidence_groups", "one_gold_page_only",
           "closed_world_judgments", "judging_sample", "read_judging_sheet", "yes_no", "SHEET_COLUMNS",
           "AUDIT_COLUMNS", "AUDIT_DECISIONS", "JUDGMENT_COLUMNS", "audit_moved_claim", "unrecovered_claim",
           "labelled_beside", "candidates_sentence", "disagreements_claim", "answer_length_claim",
           "assessor_against_people_claim", "agreement_by_kind", "weakest_kind_claim", "support_set_items",
           "accept_summary"]

AUDIT_COLUMNS = ["candidate_id", "question_id", "decision", "reasons", "question", "answer", "doc_id", "page", "group",
                 "why", "answer_found", "shared_chars", "best_rank", "runs"]
AUDIT_DECISIONS = ("pending", "accept", "reject")
JUDGMENT_COLUMNS = ["question_id", "doc_id", "page", "relevant", "by", "at", "why", "source"]


# --- the runs audited ------------------------------------------------------------------------------------------

def _as_results(golden, corpus, runs) -> list:
    """``[(name, ExperimentResult)]``: logs are evaluated; two runs of one name are told apart by ``#2``, ``#3``..."""
    from rag_metrics.experiment.evaluate import ExperimentResult, evaluate_log
    from rag_metrics.io.logs import RunLog

    if isinstance(runs, (ExperimentResult, RunLog)):
        runs = [runs]
    out, seen = [], {}
    for run in runs:
        if isinstance(run, RunLog):
            run = evaluate_log(golden, run, corpus)
        elif not isinstance(run, ExperimentResult):
            raise InputError(f"audit_labels: a run must be a retrieval log (load_log) or an experiment result "
                             f"(evaluate_log), got {type(run).__name__}.")
        check_matches(run)
        seen[run.name] = seen.get(run.name, 0) + 1
        out.append((run.name if seen[run.name] == 1 else f"{run.name}#{seen[run.name]}", run))
    if not out:
        raise InputError("audit_labels: give at least one run.")
    return out


def check_matches(result) -> None:
    """Refuse a run none of whose logged questions is in the golden set (a log of another set, or IDs and texts
    that changed): everything would be silently empty."""
    logged = len(result.log.questions)
    if logged and len(result.unknown_questions) >= logged:
        raise InputError(f"none of the {logged} logged questions is in the golden set {result.golden.source} (their "
                         "IDs, or their texts when the log has no IDs, match no golden question); is it a log of "
                         "another golden set?", path=result.log.source)


# --- the audit -------------------------------------------------------------------------------------------------

def _segments(text: str, marks: list[tuple[int, int, str]]) -> list[tuple[str, str | None]]:
    """``text`` cut into (piece, mark kind or None); overlapping marks: the answer wins over evidence."""
    kind = [None] * len(text)
    for a, b, k in sorted(marks, key=lambda m: m[2] == "answer"):
        for i in range(a, min(b, len(text))):
            kind[i] = k
    out: list = []
    for ch, k in zip(text, kind):
        if out and out[-1][1] == k:
            out[-1][0] += ch
        else:
            out.append([ch, k])
    return [(t, k) for t, k in out]


@dataclass(frozen=True)
class LabelAudit:
    """What :func:`audit_labels` found (module docstring).

    ``candidates``: one row per candidate page (:data:`AUDIT_COLUMNS` plus ``gold_pages``, ``adjacent`` and the
    highlighted ``segments``), ranked. ``duplicates``: question_id, duplicate_of, similarity, question, other.
    ``answer_not_on_gold``: question_id, question, answer, gold_pages. ``no_expected_answer``: question IDs.
    ``empty_gold_pages``: question_id, doc_id, page. ``pages``: the retrieved pages (:func:`retrieved_pages`) with
    ``labelled`` (a gold page or a human judgment). ``settings``: parameters, runs, unplaced items.
    """

    candidates: pd.DataFrame
    duplicates: pd.DataFrame
    answer_not_on_gold: pd.DataFrame
    no_expected_answer: tuple
    empty_gold_pages: pd.DataFrame
    pages: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def judged_share(self, run: str | None = None) -> float | None:
        """Mean over answerable questions of the share of their distinct retrieved pages (in the audited top k) that
        carry a human label; one run (default: all runs' pages together). None when nothing was retrieved."""
        pages = self.pages if run is None else self.pages[self.pages["run"] == run]
        pages = pages.drop_duplicates(["question_id", "doc_id", "page"])
        if not len(pages):
            return None
        return float(pages.groupby("question_id")["labelled"].mean().mean())

    def counts(self) -> dict:
        """The audit's counts, as the experiment report and the command line print them."""
        c = self.candidates
        return {"candidates": int(len(c)), "candidates_with_answer": int(c["answer_found"].sum()) if len(c) else 0,
                "questions_with_candidates": int(c["question_id"].nunique()) if len(c) else 0,
                "near_duplicates": int(len(self.duplicates)),
                "duplicates": int((self.duplicates["similarity"] >= 1.0).sum()) if len(self.duplicates) else 0,
                "answer_not_on_gold_page": int(len(self.answer_not_on_gold)),
                "no_expected_answer": len(self.no_expected_answer),
                "gold_pages_without_text": int(len(self.empty_gold_pages)),
                "retrieved_pages": int(len(self.pages.drop_duplicates(["question_id", "doc_id", "page"]))),
                "judged_share": self.judged_share()}

    def review_table(self) -> pd.DataFrame:
        """The review file's rows (:data:`AUDIT_COLUMNS`), decisions pre-filled ``pending``."""
        return self.candidates[AUDIT_COLUMNS].copy()

    def findings(self) -> pd.DataFrame:
        """Every finding other than candidate pages, one row each: kind, question_id, detail."""
        rows = [{"kind": "near_duplicate" if r.similarity < 1 else "duplicate", "question_id": r.question_id,
                 "detail": f"{r.duplicate_of} (similarity {r.similarity:.2f}): {r.other}"}
                for r in self.duplicates.itertuples()]
        rows += [{"kind": "answer_not_on_gold_page", "question_id": r.question_id,
                  "detail": f"{r.answer!r} is on none of {r.gold_pages}"} for r in self.answer_not_on_gold.itertuples()]
        rows += [{"kind": "no_expected_answer", "question_id": q, "detail": "no expected answer: cannot be audited"}
                 for q in self.no_expected_answer]
        rows += [{"kind": "gold_page_without_text", "question_id": r.question_id,
                  "detail": f"{r.doc_id} p.{r.page} has no text: no text judge can find it"}
                 for r in self.empty_gold_pages.itertuples()]
        return pd.DataFrame(rows, columns=["kind", "question_id", "detail"])

    def to_html(self, title: str = "Label audit") -> str:
        """One HTML page: counts, every candidate beside its page text (answer and evidence highlighted), the other
        findings. Every value is escaped (autoescaped template)."""
        from rag_metrics.core.html import render

        items = []
        for row in self.candidates.to_dict("records"):
            items.append({**{k: ("" if v is None or (isinstance(v, float) and v != v) else v) for k, v in row.items()},
                          "reasons_list": [r for r in str(row["reasons"]).split("; ") if r]})
        return render("labels_audit.html.j2", title=title, items=items, counts=self.counts(),
                      findings=self.findings().to_dict("records"), settings=self.settings)

    def write(self, folder) -> dict:
        """Write ``review.csv``, ``findings.csv``, ``audit.html`` and ``audit.json`` into ``folder``; their paths."""
        folder = check_output(folder, folder=True)
        paths = {"review": folder / "review.csv", "findings": folder / "findings.csv", "html": folder / "audit.html",
                 "json": folder / "audit.json"}
        publish_files({paths["review"]: review_text(self.review_table(), paths["review"]),
                       paths["findings"]: review_text(self.findings(), paths["findings"]),
                       paths["html"]: self.to_html(),
                       paths["json"]: json.dumps({"counts": self.counts(), "settings": self.settings}, indent=2,
                                                 ensure_ascii=False, default=str) + "\n"}, folder=folder)
        return paths


def _count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: "1 page", "31 pages"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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
        return (f"{_count(n, 'candidate page')}, {'holding' if n == 1 else 'each holding'} the expected answer; "
                f"{first}.")
    return (f"{_count(n, 'candidate page')}: {holding} {'holds' if holding == 1 else 'hold'} the expected answer, "
            f"{n - holding} only {'shares' if n - holding == 1 else 'share'} at least {min_evidence_chars} characters "
            f"with the gold evidence (rejected below); {first}.")


def _named_questions(rows: pd.DataFrame) -> tuple[str, str]:
    """The kinds of the questions in ``rows`` (sorted, "multi-hop" style) and up to three of them named with their
    expected answers, escaped for Markdown: what the audit's question sentences print."""
    kinds = ", ".join(sorted({str(t).replace("_", "-") for t in rows["type"]}))
    named = "; ".join(f'"{md_escape(q)}" (expected answer: "{md_escape(a)}")'
                      for q, a in zip(rows["question"].head(3), rows["answer"].head(3)))
    return kinds, named


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
        "text_if_true": (f"The audit cannot recover {_count(len(lost), 'question')} ({kinds}): {named}"
                         f"{'' if len(lost) <= 3 else ' and more'}. A page that answers "
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
        "text_if_true": (f"Even with complete labels the retriever misses {_count(len(missed), 'question')} "
                         f"({kinds}): {named}{'' if len(missed) <= 3 else ' and more'}. None of the pages "
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
        false_text = (f"Accepting the audit's {_count(accepted, 'page')} leaves page hit@{k} at {after:.3f}, short of the "
                      f"{truth:.3f} the complete labels give: the pages whose labels were dropped were not retrieved "
                      f"in the top {k}, or do not hold the expected answer as written.")
    return {
        "condition": closed is not None and closed > 0,
        "text_if_true": (f"Accepting the audit's {_count(accepted, 'page')} raises page hit@{k} from {before:.3f} to "
                         f"**{after:.3f}**; the complete labels give {truth:.3f}. The audit recovers **{closed:.0%} of what "
                         f"the missing labels cost**, without seeing the complete labels: that part of the low figure "
                         f"was never the retriever's fault."
                         + ("" if confirmed is None else f" {confirmed} of the {accepted} accepted pages are in the "
                                                         f"complete labels.")
                         if closed is not None and closed > 0 else ""),
        "text_if_false": false_text,
        "headline": True, "name": "audit_moved",
        "figures": {"before": before, "after": after, "truth": truth, "accepted": accepted, "closed": closed,
                    "confirmed": confirmed},
    }


def assessor_against_people_claim(agreed, n_claims: int) -> dict:
    """Whether an assessor measured against people's labels may fill gaps, as
    :func:`rag_metrics.report.kernel.claim`'s arguments: ``agreed`` is its
    :class:`~rag_metrics.labels.agreement.Agreement` with the labels, ``n_claims`` the labelled items. Usable only
    when the agreement says so (kappa at or above its bar, enough items of both kinds); the sentence names the
    interval either way, and says when its low end is under the bar."""
    k = agreed.kappa
    interval = (f"kappa {k.kappa:.2f}, 95% interval [{k.low:.2f}, {k.high:.2f}]" if k.kappa is not None
                else "kappa undefined")
    unsure = k.kappa is not None and k.low < agreed.min_kappa
    return {
        "condition": agreed.usable,
        "text_if_true": (f"Against {n_claims} human labels, the offline assessor clears the bar of "
                         f"{agreed.min_kappa} ({interval})" + (
                             "; the interval's low end is below the bar, so measure it on more labels before its "
                             "labels move a headline figure." if unsure else
                             ": its labels may fill gaps, kept apart from people's.")),
        "text_if_false": (f"Against {n_claims} human labels, the offline assessor is **refused** "
                          f"({interval}; the bar is {agreed.min_kappa}): its labels must not fill gaps in a figure."),
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
        "text_if_true": (f"It is weakest on **{worst.replace('_', ' ')}** claims: it agrees with people on "
                         f"{agree:.0%} of the {n} "
                         f"({supported} of them supported) -- it matches words, so where the page says the same "
                         "thing in other words it calls the page not relevant."),
        "text_if_false": (f"No kind of claim stands out: the lowest agreement, {agree:.0%} on {worst}, is shared."
                          if rest is not None else f"One kind of claim only ({worst}): agreement {agree:.0%}."),
        "name": "weakest_kind",
        "figures": {"worst": str(worst), "agree": agree, "rest": rest, "table": table["agree"].to_dict()},
    }


def disagreements_claim(agreed) -> dict:
    """Which way an assessor's disagreements with people go, and what that means for filling gaps with its labels,
    as :func:`rag_metrics.report.kernel.claim`'s arguments (``agreed``: its
    :class:`~rag_metrics.labels.agreement.Agreement`). The condition: every disagreement is a miss (people:
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
                      f"{_count(fp, 'false accept')} (the reverse), so {tp} of its {tp + fp} accepts are right. Gaps "
                      "filled with it can bias hit@k either way: kappa, which counts both errors, is the gate.")
    return {
        "condition": fp == 0 and fn > 0,
        "text_if_true": ("This is which way the rule errs here: it misses. "
                         f"Every disagreement is a miss ({_count(fn, 'item')} people call relevant and the assessor "
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
                         "sentence occurs word for word far less often than a short answer, so part of the "
                         "misses above reflects this set-up, not only the matcher."
                         if longer else ""),
        "text_if_false": (f"The claims are about as short as part 1's answers (a median of {claim_words:g} words "
                          f"against {answer_words:g}): the matcher is tested on inputs like the golden set's."),
        "name": "answer_length",
        "figures": {"claim_words": claim_words, "answer_words": answer_words},
    }


def support_set_items(claims: pd.DataFrame, corpus) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A labelled support set (:func:`rag_metrics.experiment.support.read_support_set`) read as page labels: each claim
    is one item whose expected answer is the claim and whose page is its context (pages joined), keyed by
    (claim_id, first context page). Returns the items for
    :func:`~rag_metrics.labels.assessors.assess_items` and the people's labels (relevant = supported) for
    :func:`~rag_metrics.labels.agreement.agreement`."""
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


def audit_labels(golden, corpus, runs, *, k: int | None = None, min_evidence_chars: int = 48, locate_chars: int = 24,
                 duplicate_threshold: float = 0.7, judgments: pd.DataFrame | None = None) -> LabelAudit:
    """Audit ``golden`` against the pages ``runs`` retrieved (module docstring).

    Parameters
    ----------
    golden : GoldenSet
    corpus : Corpus, the pages (their text is what is searched for the answers)
    runs : retrieval logs (:func:`~rag_metrics.io.logs.load_log`) or experiment results
        (:func:`~rag_metrics.experiment.evaluate.evaluate_log`), one or several
    k : audit the top ``k`` of each run (default: everything logged)
    min_evidence_chars : shared fragment with the gold evidence that makes a page a candidate without the answer
    locate_chars : fragment length used to place an item without page metadata on its page
    duplicate_threshold : trigram similarity from which two questions are near-duplicates
    judgments : human judgments (:func:`load_judgments`): a page judged already is not a candidate again, and
        counts as labelled in the judged share

    The findings come from their own steps: :func:`_answers_on_gold` (answers on no gold page, questions without
    an answer, empty gold pages, and the evidence), :func:`_candidate_pages` (from :func:`_unlabelled_hits`) and
    :func:`_near_duplicate_questions`.
    """
    if k is not None:
        k = check_int(k, "k", func="audit_labels")
    check_int(min_evidence_chars, "min_evidence_chars", low=8, func="audit_labels")
    results = _as_results(golden, corpus, runs)
    pages, unplaced = retrieved_pages(results, corpus, k=k, locate_chars=locate_chars)
    texts = {(d, int(p)): t for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
    q = golden.questions
    answers, question_text = dict(zip(q.index, q["answer"])), dict(zip(q.index, q["question"]))
    gold = _gold_of(golden)
    answerable = [qid for qid in golden.answerable if qid in gold]
    judged = set() if judgments is None or not len(judgments) else \
        set(zip(judgments["question_id"], judgments["doc_id"], judgments["page"].astype(int)))
    evidence, not_on_gold, no_answer, empty = _answers_on_gold(answerable, gold, answers, question_text, texts)
    pages, hits = _unlabelled_hits(pages, gold, judged, answerable, set(no_answer))
    cand = _candidate_pages(hits, texts, answers, question_text, gold, evidence, min_evidence_chars)
    dups = _near_duplicate_questions(q, duplicate_threshold)
    settings = {"k": k, "min_evidence_chars": min_evidence_chars, "locate_chars": locate_chars,
                "duplicate_threshold": duplicate_threshold, "runs": [name for name, _ in results],
                "golden": golden.source, "golden_fingerprint": golden.fingerprint(),
                "corpus": getattr(corpus, "source", None), "unplaced_items": unplaced,
                "answerable": len(answerable), "human_judgments": len(judged)}
    return LabelAudit(cand, dups,
                      pd.DataFrame(not_on_gold, columns=["question_id", "question", "answer", "gold_pages"]),
                      tuple(no_answer), pd.DataFrame(empty, columns=["question_id", "doc_id", "page"]), pages, settings)


def _gold_of(golden) -> dict:
    """question -> its gold pages ``[(doc, page)]``, in the golden set's order."""
    gold: dict = {}
    for qid, d, p in zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"]):
        gold.setdefault(qid, []).append((d, int(p)))
    return gold


def _answers_on_gold(answerable, gold: dict, answers: dict, question_text: dict, texts: dict):
    """``(evidence, not_on_gold, no_answer, empty)`` over the answerable questions: the sentences of each question's
    gold pages holding its expected answer (:func:`~rag_metrics.labels.assessors.answer_sentences`; question ->
    list, only questions with some), the rows of questions whose answer is on none of their gold pages, the
    questions without an expected answer (None or blank), and the rows of gold pages without text."""
    evidence, not_on_gold, no_answer, empty = {}, [], [], []
    for qid in answerable:
        for d, p in gold[qid]:
            if not normalize(texts.get((d, p), "")):
                empty.append({"question_id": qid, "doc_id": d, "page": p})
        answer = answers[qid]
        if answer is None or not str(answer).strip():
            no_answer.append(qid)
            continue
        found = []
        for d, p in gold[qid]:
            found += answer_sentences(texts.get((d, p), ""), answer)
        if found:
            evidence[qid] = found
        else:
            not_on_gold.append({"question_id": qid, "question": question_text[qid], "answer": answer,
                                "gold_pages": ", ".join(f"{d} p.{p}" for d, p in gold[qid])})
    return evidence, not_on_gold, no_answer, empty


def _unlabelled_hits(pages: pd.DataFrame, gold: dict, judged: set, answerable, no_answer: set):
    """``(pages, hits)``: the retrieved pages (:func:`retrieved_pages`) of answerable questions with a ``labelled``
    column (a gold page of the question, or judged), and ``(question, doc, page) -> [best rank, set of runs]`` for
    the unlabelled ones of questions with an expected answer, in the order first retrieved."""
    gold_sets = {qid: set(g) for qid, g in gold.items()}
    pages["labelled"] = [(d, p) in gold_sets.get(qid, ()) or (qid, d, p) in judged
                         for qid, d, p in zip(pages["question_id"], pages["doc_id"], pages["page"])]
    pages = pages[pages["question_id"].isin(answerable)].reset_index(drop=True)
    hits: dict = {}
    for qid, d, p, run, rank, labelled in zip(pages["question_id"], pages["doc_id"], pages["page"], pages["run"],
                                              pages["rank"], pages["labelled"]):
        if labelled or qid in no_answer:
            continue
        seen = hits.get((qid, d, p))
        if seen is None:
            hits[qid, d, p] = [rank, {run}]
        else:
            seen[0] = min(seen[0], rank)
            seen[1].add(run)
    return pages, hits


def _candidate_pages(hits: dict, texts: dict, answers: dict, question_text: dict, gold: dict, evidence: dict,
                     min_evidence_chars: int) -> pd.DataFrame:
    """The candidate pages (:data:`AUDIT_COLUMNS` and ``gold_pages``, ``adjacent``, ``segments``): the unlabelled
    ``hits`` (:func:`_unlabelled_hits`) whose page contains the expected answer or shares ``min_evidence_chars``
    characters with the question's ``evidence``; ranked answer found first, then the longer shared evidence, the
    best rank, the more runs, then question, document and page.

    Exact shortcuts: a fragment of ``min_evidence_chars`` shared with the evidence holds one whole piece of it
    (pieces of half that length, cut at multiples of it), so a page holding no piece shares nothing; and
    :func:`find_answer` finds nothing on a page whose folded text does not contain the folded answer. Each page is
    folded and normalized once (the hits are visited page by page)."""
    norm_evidence = {qid: [normalize(e) for e in found] for qid, found in evidence.items()}
    half = min_evidence_chars // 2
    pieces = {qid: {e[i:i + half] for e in found for i in range(0, len(e) - half + 1, half)}
              for qid, found in norm_evidence.items()}
    targets: dict = {}  # question -> its answer as find_answer looks for it
    candidates = []
    current = None
    for (qid, d, p), (best, runs_seen) in sorted(hits.items(), key=lambda hit: hit[0][1:]):
        if (d, p) != current:
            current, text, folded, norm = (d, p), texts.get((d, p), ""), None, None
        answer = answers[qid]
        if qid not in targets:
            targets[qid] = "" if answer is None else normalize_answer(answer)
        answer_spans = []
        if targets[qid] and isinstance(text, str):
            folded = _folded(text)[0] if folded is None else folded
            if targets[qid] in folded:
                answer_spans = find_answer(text, answer)
        ev_spans = []
        if qid in pieces:
            norm = normalize(text) if norm is None else norm
            if any(piece in norm for piece in pieces[qid]):
                ev_spans = shared_spans(norm, norm_evidence[qid], min_evidence_chars)
        if not answer_spans and not ev_spans:
            continue
        norm = normalize(text) if norm is None else norm
        candidates.append(_candidate_row(qid, d, p, int(best), sorted(runs_seen), answers[qid], question_text[qid],
                                         gold[qid], norm, answer_spans, ev_spans))
    cand = pd.DataFrame(candidates, columns=[*AUDIT_COLUMNS, "gold_pages", "adjacent", "segments"])
    if len(cand):
        cand = cand.assign(_neg_runs=-cand["runs"]).sort_values(
            ["answer_found", "shared_chars", "best_rank", "_neg_runs", "question_id", "doc_id", "page"],
            ascending=[False, False, True, True, True, True, True], kind="stable").drop(columns="_neg_runs")
        cand = cand.reset_index(drop=True)
    return cand


def _candidate_row(qid, d, p, best: int, runs_here: list, answer, question: str, gold_pages: list, norm: str,
                   answer_spans: list, ev_spans: list) -> dict:
    """One candidate page's review row: its reasons (the answer and how often, the shared evidence, the best rank
    and the runs, a gold page next to it), and the page's normalized text ``norm`` cut into marked segments (the
    answer as found in ``norm``, the evidence spans)."""
    shared = max((b - a for a, b in ev_spans), default=0)
    reasons = []
    if answer_spans:
        reasons.append(f"contains the expected answer {str(answer)!r}" +
                       (f" ({len(answer_spans)} times)" if len(answer_spans) > 1 else ""))
    if ev_spans:
        reasons.append(f"shares {shared} characters with the gold evidence")
    reasons.append(f"retrieved at rank {best} by {', '.join(runs_here)}")
    adjacent = [f"{gd} p.{gp}" for gd, gp in gold_pages if gd == d and abs(gp - p) == 1]
    if adjacent:
        reasons.append(f"next to gold page {', '.join(adjacent)} (a ±1 page window already credits it)")
    marks = [(a, b, "answer") for a, b in find_answer(norm, answer)] + [(a, b, "evidence") for a, b in ev_spans]
    return {"candidate_id": f"{qid}|{d}|p{p}", "question_id": qid, "decision": "pending", "reasons": "; ".join(reasons),
            "question": question, "answer": answer, "doc_id": d, "page": int(p), "group": None,
            "why": None, "answer_found": bool(answer_spans), "shared_chars": int(shared), "best_rank": best,
            "runs": len(runs_here), "gold_pages": ", ".join(f"{gd} p.{gp}" for gd, gp in gold_pages),
            "adjacent": bool(adjacent), "segments": _segments(norm, marks)}


def _near_duplicate_questions(questions: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Pairs of labelled questions whose trigram similarity reaches ``threshold``
    (:func:`~rag_metrics.golden.flags.near_duplicates`): question_id (the later), duplicate_of, similarity, and
    both texts."""
    labelled = questions[questions["labelled"]]
    ids, texts_of = list(labelled.index), list(labelled["question"])
    dups = [{"question_id": ids[j], "duplicate_of": ids[i], "similarity": sim, "question": texts_of[j],
             "other": texts_of[i]} for i, j, sim in near_duplicates(texts_of, threshold)]
    return pd.DataFrame(dups, columns=["question_id", "duplicate_of", "similarity", "question", "other"])


def labels_summary(result, corpus=None, *, k: int | None = None, judgments: pd.DataFrame | None = None) -> dict:
    """The judged share at ``k`` (default the result's largest k) and the audit's counts for one experiment result
    (:func:`~rag_metrics.experiment.evaluate.evaluate_log`): what the experiment report shows.

    ``judged_share``: mean over answerable questions of the share of distinct retrieved pages in the top ``k`` that
    carry a human label (a gold page, or a judgment); ``unjudged_pages`` of ``retrieved_pages`` have none.
    """
    corpus = corpus if corpus is not None else result.corpus
    if corpus is None:
        raise InputError("labels_summary needs the pages (a corpus): the audit reads their text.")
    k = max(result.ks) if k is None else k
    audit = audit_labels(result.golden, corpus, [result], k=k, judgments=judgments)
    pages = audit.pages.drop_duplicates(["question_id", "doc_id", "page"])
    return {"k": k, **audit.counts(), "unjudged_pages": int((~pages["labelled"]).sum())}


# --- decisions, accept, judgments ---------------------------------------------------------------------------

def read_audit_decisions(path) -> pd.DataFrame:
    """A reviewed audit file: candidate_id, question_id, doc_id, page, decision, why, group, line.

    Errors name the line: a missing column, an unknown decision, a candidate listed twice, a page that is not an
    integer >= 1, a group that is not an integer >= 1, one page of one question accepted on one row and rejected on
    another (both lines named). The same page decided the same way on two rows is one decision (the first row).
    """
    path = Path(path)
    columns, rows = read_rows(path, jsonl="an audit review file (JSON lines with candidate_id and decision)",
                              csv_what="an audit review file (CSV with candidate_id and decision)")
    missing = [c for c in ("candidate_id", "question_id", "doc_id", "page", "decision") if c not in columns]
    if missing:
        raise InputError(f"missing column(s) {missing}; expected the review file of `rag-metrics labels audit` "
                         f"(found {sorted(columns)}).", path=path, line=1)
    out, seen, decided = [], {}, {}
    for line, row in rows:
        cid = row.get("candidate_id")
        if not isinstance(cid, str) or not cid.strip():
            raise InputError(f"candidate_id {cid!r} is empty.", path=path, line=line, field="candidate_id")
        cid = cid.strip()
        if cid in seen:
            raise InputError(f"candidate {cid!r} is listed twice (also at line {seen[cid]}).", path=path, line=line,
                             field="candidate_id")
        seen[cid] = line
        decision = row.get("decision")
        decision = decision.strip().lower() if isinstance(decision, str) else decision
        if decision in ("", None):
            decision = "pending"
        if decision not in AUDIT_DECISIONS:
            check_choice(row.get("decision"), AUDIT_DECISIONS, "decision", what=f"candidate {cid!r}:", path=path,
                         line=line, field="decision")
        qid, doc = row.get("question_id"), row.get("doc_id")
        for name, value in (("question_id", qid), ("doc_id", doc)):
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"candidate {cid!r}: {name} {value!r} is empty.", path=path, line=line, field=name)
        page = _positive(row.get("page"), path, line, "page", f"candidate {cid!r}")
        group = row.get("group")
        group = None if group is None or (isinstance(group, str) and not group.strip()) else \
            _positive(group, path, line, "group", f"candidate {cid!r}")
        why = row.get("why")
        key = (qid.strip(), doc.strip(), page)
        if decision != "pending" and key in decided:
            first, said = decided[key]
            if said != decision:
                raise InputError(f"candidate {cid!r}: {doc.strip()!r} p.{page} for question {qid.strip()!r} is "
                                 f"given decision {decision} here and {said} at line {first}; one page, one decision.",
                                 path=path, line=line, field="decision")
            continue  # the same page decided the same way twice: one judgment
        if decision != "pending":
            decided[key] = (line, decision)
        out.append({"candidate_id": cid, "question_id": qid.strip(), "doc_id": doc.strip(), "page": page,
                    "decision": decision, "why": why.strip() if isinstance(why, str) and why.strip() else None,
                    "reasons": row.get("reasons") or None, "group": group, "line": line})
    if not out:
        raise InputError("no candidate found.", path=path)
    return pd.DataFrame(out, dtype=object)  # a missing why or group stays None (pandas 3 would make it NaN)


def _positive(value, path, line, name, who) -> int:
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{who}: {name} {value!r} is not an integer >= 1.", path=path, line=line, field=name)
    return value


def _judgments_path(golden_path) -> Path:
    return Path(str(golden_path) + ".judgments.jsonl")


def load_judgments(path) -> pd.DataFrame:
    """Human page judgments (:data:`JUDGMENT_COLUMNS`), as :func:`accept_labels` writes them; errors name the line.

    A golden set's own judgments are ``<golden>.judgments.jsonl``; a missing file is an empty table only through
    :func:`human_labels` (here it is an error).
    """
    rows, seen = [], {}
    for line, row in iter_jsonl(path, "human judgments (JSON lines: question_id, doc_id, page, relevant)"):
        for name in ("question_id", "doc_id"):
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise InputError(f"{name} {row.get(name)!r} is not a non-empty string.", path=path, line=line,
                                 field=name)
        page = row.get("page")
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise InputError(f"page {page!r} is not an integer >= 1.", path=path, line=line, field="page")
        if not isinstance(row.get("relevant"), bool):
            raise InputError(f"relevant {row.get('relevant')!r} must be true or false.", path=path, line=line,
                             field="relevant")
        key = (row["question_id"], row["doc_id"], page)
        if key in seen:
            raise InputError(f"{row['question_id']!r}, {row['doc_id']!r} p.{page} is judged twice (also at line "
                             f"{seen[key]}).", path=path, line=line, field="page")
        seen[key] = line
        rows.append({c: row.get(c) for c in JUDGMENT_COLUMNS})
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)


def human_labels(golden, judgments: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every human page label: question_id, doc_id, page, relevant, source -- the gold pages (relevant, source
    ``gold``) and the judgments (source ``judgment``). Assessed labels are never in this table."""
    gold = golden.gold_pages.assign(relevant=True, source="gold")[["question_id", "doc_id", "page", "relevant", "source"]]
    if judgments is None or not len(judgments):
        return gold.reset_index(drop=True)
    extra = judgments.assign(source="judgment")[["question_id", "doc_id", "page", "relevant", "source"]]
    keys = set(zip(gold["question_id"], gold["doc_id"], gold["page"].astype(int)))
    extra = extra[[k not in keys for k in zip(extra["question_id"], extra["doc_id"], extra["page"].astype(int))]]
    return pd.concat([gold, extra], ignore_index=True)


def _raw_records(path) -> list[tuple[int, dict]]:
    """The golden set's records as written (unknown fields kept); a CSV set in the JSON-lines schema, pages as ints."""
    if Path(path).suffix.lower() != ".csv":
        return list(iter_jsonl(path, "a golden set (JSON lines)"))
    records = _csv_rows(path)

    def page(v):
        return int(v) if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() else v

    for _, rec in records:
        if isinstance(rec.get("gold_pages"), list):
            rec["gold_pages"] = [[p[0], page(p[1])] if isinstance(p, list) and len(p) == 2 else p
                                 for p in rec["gold_pages"]]
        if isinstance(rec.get("gold_groups"), list):
            rec["gold_groups"] = [[[m[0], page(m[1])] if isinstance(m, list) and len(m) == 2 else m for m in g]
                                  if isinstance(g, list) else g for g in rec["gold_groups"]]
    return records


def accept_summary(meta: dict, golden_path, path, judgments_path) -> list[str]:
    """What `labels accept` did, from the new set's ``meta`` (its ``.meta.json``): the counts, then whether the
    fingerprint changed -- nothing decided anew, only rejections (unchanged: runs stay comparable), or a page became
    gold (runs judged against the old set are not compared with the new)."""
    unchanged = f", {meta['unchanged']} decided so already" if meta["unchanged"] else ""
    lines = [f"wrote {path}: {meta['accepted']} page(s) accepted as gold, {meta['rejected']} rejected, "
             f"{meta['pending']} pending{unchanged}; human judgments in {judgments_path}"]
    if meta["previous_fingerprint"] == meta["fingerprint"] and not meta["accepted"] and not meta["rejected"]:
        lines.append(f"nothing changed: every decision is in {golden_path} already (fingerprint {meta['fingerprint']})")
    elif meta["previous_fingerprint"] == meta["fingerprint"]:
        lines.append(f"fingerprint {meta['fingerprint']} unchanged: no page became gold (only rejections), so runs "
                     "judged against the old set stay comparable")
    else:
        lines.append(f"fingerprint {meta['previous_fingerprint']} -> {meta['fingerprint']}: runs judged against the "
                     "old set are not compared with runs judged against the new one")
    return lines


def accept_labels(golden_path, decisions: pd.DataFrame, out, *, by: str, corpus=None, decisions_source=None,
                  now=None):
    """Write the golden set with the accepted pages as gold; return ``(GoldenSet, path, judgments path)``.

    Every accepted page is added to its question's ``gold_pages`` (its document to ``gold_docs``; to the group
    ``group`` for a question written with evidence groups, which then must be given) and recorded in the question's
    ``label_provenance`` with who (``by``), when (``now``, UTC) and why (the reviewer's ``why``, else the audit's
    reasons). Rejected pages are human labels of non-relevance: with the accepted ones they go to
    ``<out>.judgments.jsonl`` (after the input set's own judgments). Pending rows are left for later.

    Refused before anything is written: ``out`` equal to the input (keep the old set: runs judged against it stay
    comparable with it), a decision for a question the set does not have or that has no gold pages, a group out of
    range or missing, a page the corpus does not hold, a page judged both ways, a gold page rejected (the golden set
    says it is relevant: edit the set by hand), nothing decided, an ``out`` that is a folder. A decision the input
    set holds already (an accepted page that is gold, a page judged the same way before) changes nothing and is
    counted ``unchanged``: accepting into a set's own output is idempotent. The three files are published together
    (:func:`~rag_metrics.core.files.publish_files`: judgments and meta first, the set last). The new set is read back
    with :func:`~rag_metrics.io.golden.load_golden`; its fingerprint is in ``<out>.meta.json`` next to the old one.
    """
    from rag_metrics.io.golden import load_golden

    if not isinstance(by, str) or not by.strip():
        raise InputError("say who reviewed the labels (by=NAME, --by NAME): it is recorded with every accepted page.")
    golden_path, out = Path(golden_path), check_output(out)
    if out.resolve() == golden_path.resolve():
        raise InputError("the output would overwrite the golden set it changes; write a new file (the old set stays "
                         "for runs judged against it).", path=out)
    old = load_golden(golden_path, corpus=corpus)
    now = now or _dt.datetime.now(_dt.timezone.utc)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    where = {"path": decisions_source}
    decided = decisions[decisions["decision"] != "pending"]
    if not len(decided):
        raise InputError("no candidate is accepted or rejected; nothing to write (decisions are 'pending').", **where)
    records = _raw_records(golden_path)
    by_id = {str(r.get("question_id")).strip(): r for _, r in records}
    prior_path = _judgments_path(golden_path)
    prior = load_judgments(prior_path) if prior_path.is_file() else pd.DataFrame(columns=JUDGMENT_COLUMNS)
    prior_keys = {(q, d, int(p)): bool(r) for q, d, p, r in zip(prior["question_id"], prior["doc_id"], prior["page"],
                                                                 prior["relevant"])}
    gold_of = {qid: {(d, int(p)) for d, p in zip(g["doc_id"], g["page"])}
               for qid, g in old.gold_pages.groupby("question_id")}
    new_judgments, accepted, unchanged = [], 0, 0
    for row in decided.to_dict("records"):
        qid, doc, page, line = row["question_id"], row["doc_id"], int(row["page"]), row.get("line")
        loc = {"line": line, "question": qid, **where}
        if qid not in by_id:
            raise InputError(f"candidate {row['candidate_id']!r}: question {qid!r} is not in the golden set.", **loc)
        if corpus is not None and not ((corpus.pages["doc_id"] == doc) & (corpus.pages["page"] == page)).any():
            raise InputError(f"candidate {row['candidate_id']!r}: page {page} of {doc!r} is not in the corpus.", **loc)
        relevant = row["decision"] == "accept"
        is_gold = (doc, page) in gold_of.get(qid, ())
        if is_gold and not relevant:
            raise InputError(f"candidate {row['candidate_id']!r}: {doc!r} p.{page} is a gold page of {qid!r}, so decision "
                             f"reject contradicts the golden set; remove the page from {golden_path} by hand if it "
                             "is wrong.", field="decision", **loc)
        if prior_keys.get((qid, doc, page), relevant) != relevant:
            raise InputError(f"candidate {row['candidate_id']!r}: {doc!r} p.{page} was judged "
                             f"{'relevant' if prior_keys[qid, doc, page] else 'not relevant'} before; change the "
                             f"judgments file ({prior_path}) first.", **loc)
        if is_gold or (qid, doc, page) in prior_keys:
            unchanged += 1  # decided so already (the set is its own output, or the decision is repeated)
            continue
        # the first text given: a missing cell is None, or NaN once a frame held it (pandas 3's string dtype)
        why = next((v for v in (row.get("why"), row.get("reasons")) if isinstance(v, str) and v.strip()), None)
        new_judgments.append({"question_id": qid, "doc_id": doc, "page": page, "relevant": relevant, "by": by.strip(),
                              "at": stamp, "why": why, "source": "label audit"})
        if relevant:
            _add_page(by_id[qid], doc, page, row.get("group"), loc)
            by_id[qid].setdefault("label_provenance", []).append(
                {"doc_id": doc, "page": page, "added_by": by.strip(), "added_at": stamp, "why": why,
                 "source": "label audit", "decisions": None if decisions_source is None else str(decisions_source)})
            accepted += 1
    new_set = golden_from_records(records, path=out, corpus=corpus)  # validated before anything is written
    judgments = prior.to_dict("records") + new_judgments
    jpath, meta_path = _judgments_path(out), Path(str(out) + ".meta.json")
    meta = {"fingerprint": new_set.fingerprint(), "previous_fingerprint": old.fingerprint(),
            "previous": str(golden_path), "accepted": accepted, "rejected": len(new_judgments) - accepted,
            "unchanged": unchanged, "pending": int(len(decisions) - len(decided)), "by": by.strip(), "at": stamp,
            "decisions": None if decisions_source is None else str(decisions_source), "judgments": str(jpath)}
    # one publication: the judgments and the meta file first, the golden set (what readers look for) last
    publish_files({jpath: jsonl_text(judgments),
                   meta_path: json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
                   out: jsonl_text([r for _, r in records])})
    golden = load_golden(out, corpus=corpus)
    if golden.fingerprint() != new_set.fingerprint():  # pragma: no cover - the set read back is the set written
        raise AssertionError(f"{out} does not read back as written")
    return golden, out, jpath


def _add_page(record: dict, doc: str, page: int, group, loc) -> None:
    qid = record.get("question_id")
    pages = record.get("gold_pages")
    groups = record.get("gold_groups")
    if not pages and not groups:
        raise InputError(f"question {qid!r} has no gold pages (document-level gold): add the page by hand.", **loc)
    pair = [doc, page]
    if groups:
        if group is None:
            raise InputError(f"question {qid!r} is written with {len(groups)} evidence groups: give the group "
                             f"(1..{len(groups)}) the page satisfies in the 'group' column.", field="group", **loc)
        if not 1 <= group <= len(groups):
            raise InputError(f"question {qid!r}: group {group} is out of range 1..{len(groups)}.", field="group",
                             **loc)
        if pair not in [list(m) for m in groups[group - 1]]:
            groups[group - 1].append(pair)
    elif group is not None and group != 1:
        raise InputError(f"question {qid!r} has no evidence groups; leave 'group' empty.", field="group", **loc)
    if pages is not None and pair not in [list(p) for p in pages]:
        pages.append(pair)
    docs = record.get("gold_docs")
    if docs and doc not in docs:
        docs.append(doc)


# --- golden sets rewritten in memory (notebooks, experiments) ---------------------------------------------------

def _records_of(golden) -> list[tuple[int, dict]]:
    """The golden set's questions in the JSON-lines schema (what :func:`golden_from_records` reads back)."""
    pages = {q: [[d, int(p)] for d, p in zip(g["doc_id"], g["page"])] for q, g in golden.gold_pages.groupby("question_id")}
    docs = {q: list(dict.fromkeys(g["doc_id"])) for q, g in golden.gold.dropna(subset=["doc_id"]).groupby("question_id")}
    rel = {q: {d: float(r) for d, r in zip(g["doc_id"], g["relevance"]) if r != 1}
           for q, g in golden.gold.dropna(subset=["doc_id"]).groupby("question_id")}
    chunks = {} if golden.gold_chunks is None else {q: list(g["chunk_id"]) for q, g in
                                                    golden.gold_chunks.groupby("question_id")}
    groups = {}
    if golden.has_groups:
        for q, g in golden.gold_groups.groupby("question_id", sort=False):
            groups[q] = [[[d, int(p)] for d, p in zip(m["doc_id"], m["page"])] for _, m in g.groupby("group")]
    out = []
    for i, (qid, row) in enumerate(golden.questions.iterrows(), start=1):
        rec = {"question_id": qid, "question": row["question"], "type": row["type"], "answer": row["answer"],
               "labelled": bool(row["labelled"])}
        for key, table in (("gold_docs", docs), ("gold_pages", pages), ("gold_chunks", chunks), ("relevance", rel),
                           ("gold_groups", groups)):
            if table.get(qid):
                rec[key] = table[qid]
        out.append((i, rec))
    return out


def with_evidence_groups(golden, *, types=("multi_hop",)):
    """The golden set with every question of ``types`` written as evidence groups of one page each -- all its gold
    pages needed together (a multi-hop question) -- and the other questions as they are (any gold page)."""
    records = []
    for line, rec in _records_of(golden):
        if rec["type"] in types and rec.get("gold_pages") and not rec.get("gold_groups"):
            rec = {**rec, "gold_groups": [[p] for p in rec["gold_pages"]]}
        records.append((line, rec))
    return golden_from_records(records, path=golden.source)


def one_gold_page_only(golden, *, keep: str = "first", out=None, corpus=None):
    """The golden set with one gold page of each question (and its document) kept -- the ``first`` or the ``last``
    listed: the labels a set built from one sampled page per question would have. For measuring what missing labels
    do to a figure, the complete set being the truth. With ``out``, also written there as JSON lines (what
    :func:`accept_labels` reads) and returned as read back from it."""
    check_choice(keep, ("first", "last"), "keep", func="one_gold_page_only")
    records = []
    for line, rec in _records_of(golden):
        if rec.get("gold_pages") and not rec.get("gold_groups"):
            doc, page = rec["gold_pages"][0 if keep == "first" else -1]
            rec = {**rec, "gold_pages": [[doc, page]], "gold_docs": [doc],
                   "relevance": {d: v for d, v in rec.get("relevance", {}).items() if d == doc}}
            rec.pop("gold_chunks", None)
        records.append((line, rec))
    if out is None:
        return golden_from_records(records, path=golden.source)
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.jsonl import write_jsonl

    return load_golden(write_jsonl([rec for _, rec in records], check_output(out)), corpus=corpus)


def closed_world_judgments(result, questions, *, k: int | None = None, by: str = "closed world") -> pd.DataFrame:
    """Judgments (:data:`JUDGMENT_COLUMNS`) that read a golden set as complete for ``questions``: every retrieved
    top-``k`` page of theirs that is not a gold page is judged not relevant -- what pooled evaluations such as TREC
    assume of unjudged documents. A stand-in for people who judged those pages; the label audit shows where it is
    wrong (a page that holds the answer but was never labelled)."""
    k = max(result.ks) if k is None else check_int(k, "k", func="closed_world_judgments")
    pages, _ = retrieved_pages([(result.name, result)], result.corpus, k=k)
    wanted = set(questions)
    gold = set(zip(result.golden.gold_pages["question_id"], result.golden.gold_pages["doc_id"],
                   result.golden.gold_pages["page"].astype(int)))
    rows = [{"question_id": q, "doc_id": d, "page": int(p), "relevant": False, "by": by, "at": None,
             "why": "not a gold page of a golden set read as complete", "source": "closed world"}
            for q, d, p in zip(pages["question_id"], pages["doc_id"], pages["page"])
            if q in wanted and (q, d, int(p)) not in gold]
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS).drop_duplicates(["question_id", "doc_id", "page"])


# --- a random sample of questions for people to judge completely (the prediction-powered figure needs it) --------

SHEET_COLUMNS = ["question_id", "question", "answer", "doc_id", "page", "gold", "relevant", "why", "text"]
_YES, _NO = {"yes", "y", "true", "1", "relevant", "gold"}, {"no", "n", "false", "0", "not relevant"}


def yes_no(value, yes=_YES, no=_NO) -> bool | None:
    """A sheet's yes/no cell read as a person writes it (``yes``/``no``, ``y``/``n``, ``true``/``false``, ``1``/``0``
    and the words in ``yes``/``no``; any case, surrounding spaces ignored): True, False, or None when it is neither
    (the caller names the line)."""
    word = str(value).strip().lower() if value is not None and not isinstance(value, bool) else value
    if word is True or word in yes:
        return True
    if word is False or word in no:
        return False
    return None


def judging_sample(result, n: int, *, seed: int = 0, k: int | None = None) -> pd.DataFrame:
    """A judging sheet (:data:`SHEET_COLUMNS`): ``n`` answerable questions drawn at random (seeded) and every page
    the run retrieved for them in the top ``k``, for people to mark ``relevant`` yes or no. Gold pages come
    pre-marked ``yes``; a question with nothing retrieved has one row without a page. Judged completely, the sample
    is what the prediction-powered figure (:func:`rag_metrics.labels.agreement.assessed_figures`) corrects with."""
    import numpy as np

    n = check_int(n, "n", low=2, func="judging_sample")
    k = max(result.ks) if k is None else check_int(k, "k", func="judging_sample")
    check_matches(result)
    golden = result.golden
    answerable = [q for q in golden.answerable if q in set(golden.gold_pages["question_id"])]
    if n > len(answerable):
        raise InputError(f"judging_sample: {n} questions asked, the golden set has {len(answerable)} answerable ones.")
    chosen = set(np.random.default_rng(seed).choice(len(answerable), size=n, replace=False).tolist())
    sample = [q for i, q in enumerate(answerable) if i in chosen]
    pages, _ = retrieved_pages([(result.name, result)], result.corpus, k=k)
    texts = {(d, int(p)): t for d, p, t in zip(result.corpus.pages["doc_id"], result.corpus.pages["page"],
                                                result.corpus.pages["text"])}
    gold = set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"].astype(int)))
    rows = []
    for q in sample:
        mine = pages[pages["question_id"] == q].drop_duplicates(["doc_id", "page"])
        base = {"question_id": q, "question": golden.questions.at[q, "question"], "answer": golden.questions.at[q, "answer"]}
        if not len(mine):
            rows.append({**base, "doc_id": None, "page": None, "gold": False, "relevant": None, "why": None, "text": None})
        for d, p in zip(mine["doc_id"], mine["page"]):
            is_gold = (q, d, int(p)) in gold
            rows.append({**base, "doc_id": d, "page": int(p), "gold": is_gold, "relevant": "yes" if is_gold else None,
                         "why": None, "text": normalize(texts.get((d, int(p)), ""))})
    sheet = pd.DataFrame(rows, columns=SHEET_COLUMNS)
    sheet["page"] = pd.Series([r["page"] for r in rows], dtype=object, index=sheet.index)  # ints, None: no "2.0"
    return sheet


def read_judging_sheet(path, *, by: str | None = None, golden=None) -> tuple[pd.DataFrame, list]:
    """A filled judging sheet (:func:`judging_sample`): ``(judgments, sampled question IDs)``. Every row with a page
    needs ``relevant`` yes or no; errors name the line. With ``golden`` (the set the sheet was drawn from) a question
    it does not hold, a question without an answer (no_answer) and a gold page marked no are refused too."""
    path = Path(path)
    gold = set() if golden is None else \
        set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"].astype(int)))
    answerable = None if golden is None else set(golden.answerable)
    columns, rows = read_rows(path, jsonl="a judging sheet (JSON lines)",
                              csv_what="a judging sheet (CSV from `rag-metrics labels sample`)")
    missing = [c for c in ("question_id", "doc_id", "page", "relevant") if c not in columns]
    if missing:
        raise InputError(f"missing column(s) {missing}; expected the sheet of `rag-metrics labels sample` (found "
                         f"{sorted(columns)}).", path=path, line=1)
    judgments, sample, seen = [], [], {}
    for line, row in rows:
        qid = row.get("question_id")
        if not isinstance(qid, str) or not qid.strip():
            raise InputError(f"question_id {qid!r} is empty.", path=path, line=line, field="question_id")
        qid = qid.strip()
        if golden is not None and qid not in golden.questions.index:
            raise InputError(f"question_id {qid!r} is not in the golden set {golden.source}; a sheet is drawn from "
                             "the set it is judged with.", path=path, line=line, field="question_id")
        if answerable is not None and qid not in answerable:
            raise InputError(f"question_id {qid!r} has no answer in the golden set ({golden.questions.at[qid, 'type']}): "
                             "there is no relevant page to judge.", path=path, line=line, field="question_id")
        if qid not in sample:
            sample.append(qid)
        doc = row.get("doc_id")
        if doc is None or (isinstance(doc, str) and not doc.strip()):
            continue  # nothing retrieved for the question
        page = _positive(row.get("page"), path, line, "page", f"question {qid!r}")
        value = row.get("relevant")
        relevant = yes_no(value)
        if relevant is None:
            raise InputError(f"question {qid!r}, {doc!r} p.{page}: relevant {value!r}; write yes or no.", path=path,
                             line=line, field="relevant")
        key = (qid, doc.strip(), page)
        if key in seen:
            raise InputError(f"question {qid!r}, {doc!r} p.{page} is listed twice (also at line {seen[key]}).",
                             path=path, line=line, field="page")
        if not relevant and key in gold:
            raise InputError(f"question {qid!r}, {doc!r} p.{page} is a gold page, marked relevant "
                             f"{value!r}: the golden set says it is relevant; mark it yes, or remove the page from the golden set by hand if it is "
                             "wrong.", path=path, line=line, field="relevant")
        seen[key] = line
        why = row.get("why")
        judgments.append({"question_id": qid, "doc_id": doc.strip(), "page": page, "relevant": relevant,
                          "by": by or row.get("by") or None, "at": row.get("at") or None,
                          "why": why.strip() if isinstance(why, str) and why.strip() else None,
                          "source": "judging sample"})
    if not sample:
        raise InputError("no question found.", path=path)
    return pd.DataFrame(judgments, columns=JUDGMENT_COLUMNS), sample
