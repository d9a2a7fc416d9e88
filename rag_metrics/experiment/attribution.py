"""Retrieval failures vs generation failures, per question.

Input: one row per question (:func:`attribute`), with

=================  ==================================================================
question_id        identifier
expected_answer    the golden short answer (null for no_answer / unlabelled questions)
gold_ids           list of gold document IDs ([] for no_answer)
retrieved_ids      list of retrieved document IDs in rank order -- or pass ``run=`` (a
                   result table with question_id, rank, doc_id[, score])
generated_answer   the system's answer, from its logs (this project never calls an LLM)
type               optional question type; ``no_answer`` questions are handled apart
labelled           optional bool; False = gold not annotated yet (annotation backlog)
faithfulness       optional score in [0, 1] from the user's evaluator, for :func:`diagnose`
=================  ==================================================================

Per answerable question: Recall@k and hit@k of the gold documents (definitions of
:mod:`rag_metrics.measures.metrics`), ``retrieval_ok`` (``rule="all"``: every gold document in
the top k, i.e. Recall@k = 1, the default; ``rule="any"``: at least one, i.e. hit@k = 1), ``answer_ok`` and the
status (what each one measures under each rule: :func:`status_meanings`):

=========================  ===============  ==========
status                     retrieval_ok     answer_ok
=========================  ===============  ==========
passed                     yes              yes
gold_missed_answer_wrong   no               no
gold_found_answer_wrong    yes              no
gold_missed_answer_right   no               yes
=========================  ===============  ==========

Each name says what it measures: whether the gold documents were found in the top k *by the rule*, and whether the
answer is right. They are deliberately not called "retrieval failure" / "generation failure": that is a reading of
them, and :mod:`rag_metrics.experiment.answer_support` uses those words for another rule (no gold item read, answer
judged against the page).

A common three-status taxonomy (:meth:`Attribution.three_status_counts`) counts a question whose gold documents were
missed as a retrieval failure whatever the answer; here a right answer is kept apart (``gold_missed_answer_right``).

What "missed" means depends on the rule. Under the default, ``rule="all"`` (the common taxonomy's: Recall@k below 1.0
is a retrieval failure), a question with two gold documents and one of them in the context is ``gold_missed_*`` --
although its answer may well have come from the one that *was* retrieved. Only under ``rule="any"`` (hit@k = 0) does
``gold_missed_answer_right`` mean no gold document was in the context (the model answered from memory, or from text
found elsewhere). :func:`partial_retrieval` counts, under ``"all"``, the missed questions that still had a gold
document in the context.

The answers were generated from a context: the top ``context_k`` items their log records. Attributed at another
``k`` they would be judged against a retrieval they were not made from (a smaller ``k``), or the recall of items the
log does not hold (a larger one): :func:`attribute` refuses both when ``context_k`` is given, and
:func:`logged_context_k` reads it from the log.

Answer matching is lexical, **not a semantic judgment**: ``exact`` (after
:func:`normalize_answer`: NFKC so full-width and half-width digits agree, case, whitespace,
surrounding punctuation), ``contains`` (the normalized expected answer occurs in the
normalized generated one) or ``token_f1`` (F1 of tokens >= ``f1_threshold``; Japanese
compared by character bigrams). A paraphrase with different words fails all three.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, NotComparableError, check_choice, check_k
from rag_metrics.core.fingerprint import check_comparable, fingerprint
from rag_metrics.answers.matching import DEFAULT_REFUSALS, MATCHES, answer_match, is_refusal, token_f1
from rag_metrics.measures.metrics import hit_at_k, recall_at_k
from rag_metrics.core.serialize import jsonable

__all__ = ["attribute", "Attribution", "join_answers", "diagnose", "compare_generators", "compare_attributions",
           "run_from_logs", "logged_context_k", "STATUSES", "status_meanings", "retrieval_rule_text", "status_table",
           "partial_retrieval", "status_summary"]

STATUSES = ("passed", "gold_missed_answer_right", "gold_missed_answer_wrong", "gold_found_answer_wrong")
RULES = ("all", "any")

_RETRIEVED = {"all": ("every gold document in the top {k}", "a gold document missing from the top {k}"),
              "any": ("a gold document in the top {k}", "no gold document in the top {k}")}


def retrieval_rule_text(rule: str, k: int | str = "k") -> str:
    """What ``retrieval_ok`` measures under ``rule``, in words: ``"every gold document in the top 3 (Recall@3 = 1)"``."""
    check_choice(rule, RULES, "rule")
    return _RETRIEVED[rule][0].format(k=k) + (f" (Recall@{k} = 1)" if rule == "all" else f" (hit@{k} = 1)")


def status_meanings(rule: str, k: int | str = "k") -> dict:
    """What each status measures under ``rule`` (``{status: words}``): under ``"all"`` gold missed is a gold document
    *missing* (others may be in the context); under ``"any"`` it is *no* gold document in the context."""
    check_choice(rule, RULES, "rule")
    ok, failed = (t.format(k=k) for t in _RETRIEVED[rule])
    return {"passed": f"{ok}, answer right", "gold_missed_answer_wrong": f"{failed}, answer wrong",
            "gold_found_answer_wrong": f"{ok}, answer wrong", "gold_missed_answer_right": f"{failed}, answer right"}


def _as_list(value, qid, column):
    if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
        return [str(v) for v in list(value)]
    raise InputError(f"question {qid!r}: {column} must be a list of IDs, got {value!r}.", question=qid)


@dataclass(frozen=True)
class Attribution:
    """Per-question attribution; see :func:`attribute`.

    ``records``: answerable questions (index question_id): type, n_gold, recall@k, hit@k,
    retrieval_ok, answer_ok, status (+ answer_score for token_f1, faithfulness if given).
    ``no_answer``: the no_answer questions: refused, and with a threshold top_score and
    nothing_above_threshold. ``backlog``: unlabelled question IDs (excluded from everything).
    """

    records: pd.DataFrame
    no_answer: pd.DataFrame
    backlog: tuple
    k: int
    rule: str
    match: str
    threshold: float | None
    fingerprint: dict = field(default_factory=dict)

    @property
    def mean_recall(self) -> float:
        return float(self.records[f"recall@{self.k}"].mean()) if len(self.records) else float("nan")

    @property
    def answer_accuracy(self) -> float:
        return float(self.records["answer_ok"].mean()) if len(self.records) else float("nan")

    @property
    def status_counts(self) -> dict:
        counts = self.records["status"].value_counts()
        return {s: int(counts.get(s, 0)) for s in STATUSES}

    def three_status_counts(self) -> dict:
        """Counts in the three-status taxonomy (module docstring): a question whose gold documents were missed (under
        the attribution's rule) counts as ``gold_missed`` whatever its answer."""
        counts = self.status_counts
        return {"passed": counts["passed"],
                "gold_missed": counts["gold_missed_answer_wrong"] + counts["gold_missed_answer_right"],
                "gold_found_answer_wrong": counts["gold_found_answer_wrong"]}

    def by(self, column: str = "type") -> pd.DataFrame:
        """Status counts per value of ``column`` (e.g. question type)."""
        table = pd.crosstab(self.records[column], self.records["status"])
        return table.reindex(columns=list(STATUSES), fill_value=0)

    def no_answer_summary(self) -> dict:
        na = self.no_answer
        out = {"count": int(len(na)), "refused": int(na["refused"].sum()) if len(na) else 0}
        out["refusal_rate"] = out["refused"] / out["count"] if out["count"] else None
        if self.threshold is not None and len(na):
            quiet = int(na["nothing_above_threshold"].sum())
            out |= {"threshold": self.threshold, "nothing_above_threshold": quiet,
                    "confident_junk": int(len(na) - quiet), "nothing_above_threshold_rate": quiet / len(na)}
        return out

    def to_dict(self) -> dict:
        """The JSON report (schema in docs/attribution.md): settings, headline figures, per-question records."""
        records = [{"question_id": q, **row} for q, row in self.records.iterrows()]
        return jsonable({
            "k": self.k, "rule": self.rule, "match": self.match,
            "n_questions": int(len(self.records)),
            "mean_recall": self.mean_recall, "answer_accuracy": self.answer_accuracy,
            "status_counts": self.status_counts,
            "no_answer": self.no_answer_summary(),
            "excluded": {"no_answer": int(len(self.no_answer)), "unlabelled": int(len(self.backlog))},
            "backlog": list(self.backlog),
            "fingerprint": self.fingerprint,
            "questions": records,
        })

    def to_json(self, path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=2), encoding="utf-8")
        return path


def _retrieved_from_run(run, qids):
    needed = ["question_id", "rank", "doc_id"]
    missing = [c for c in needed if c not in run.columns]
    if missing:
        raise InputError(f"run: missing column(s) {missing}; found {list(run.columns)}.")
    unknown = sorted(set(run["question_id"]) - set(qids))
    if unknown:
        raise InputError(f"run: question(s) {unknown[:5]} are not in the attribution table.", question=unknown[0])
    ordered = run.sort_values(["question_id", "rank"], kind="stable")
    lists = ordered.groupby("question_id")["doc_id"].agg(list).to_dict()
    tops = ordered.groupby("question_id")["score"].max().to_dict() if "score" in run.columns else {}
    return lists, tops


def attribute(table: pd.DataFrame, *, k: int, rule: str = "all", match: str = "exact", f1_threshold: float = 0.5,
              run: pd.DataFrame | None = None, threshold: float | None = None, refusal_patterns=DEFAULT_REFUSALS,
              corpus_version=None, chunking=None, context_k: int | None = None) -> Attribution:
    """Label each question ``passed``, ``gold_missed_answer_right``, ``gold_missed_answer_wrong`` or
    ``gold_found_answer_wrong`` (gold documents found in the top k by ``rule``; answer right).

    ``no_answer`` questions (type no_answer, or labelled with no gold) are excluded from
    recall and accuracy (counted) and evaluated apart: share of refusals in the generated
    answers and, when ``threshold`` and a run with scores are given, the share whose
    retrieval returned nothing scoring at least ``threshold`` (good) vs confident junk.
    Unlabelled questions are excluded from everything and listed as the backlog.
    ``corpus_version`` and ``chunking`` are recorded in the fingerprint with the
    questions, gold and k, so that :func:`compare_attributions` can refuse unfair comparisons.

    ``context_k``: how many retrieved items the generator was given (:func:`logged_context_k`). When it is given,
    ``k`` must equal it: the statuses judge each answer against the context it was made from, and anything else is
    refused with :class:`~rag_metrics.InputError`. With a ``gold_relevance`` column (``{doc: label}``, as
    :func:`join_answers` writes it), each record also says whether a gold document of the question's highest label
    was in the top ``k`` (``top_gold_retrieved``).
    """
    k = check_k(k, func="attribute")
    _check_context_k(k, context_k)
    check_choice(rule, RULES, "rule")
    check_choice(match, MATCHES, "match")
    _check_table(table, with_run=run is not None)
    qids = table["question_id"].astype(str).tolist()
    retrieved, tops = _retrieved_from_run(run, qids) if run is not None else ({}, {})

    rows, no_answer, backlog = [], [], []
    for row in table.to_dict("records"):
        qid = str(row["question_id"])
        typ = row.get("type") or ""
        if row.get("labelled", True) is False:
            backlog.append(qid)
            continue
        gold = _as_list(row["gold_ids"], qid, "gold_ids")
        answer = row["generated_answer"]
        if answer is None or (isinstance(answer, float) and math.isnan(answer)):
            raise InputError(f"question {qid!r}: generated_answer is null; expected the system's answer "
                             "(use an empty string for a system that answered nothing).", question=qid)
        ranked = retrieved.get(qid, []) if run is not None else _as_list(row["retrieved_ids"], qid, "retrieved_ids")
        if typ == "no_answer" or not gold:
            no_answer.append(_no_answer_record(qid, typ, answer, refusal_patterns, threshold, run, tops))
        else:
            rows.append(_answered_record(row, qid, typ, gold, ranked, answer, k=k, rule=rule, match=match,
                                         f1_threshold=f1_threshold))
    records = pd.DataFrame(rows).set_index("question_id") if rows else pd.DataFrame(
        columns=["type", "n_gold", f"recall@{k}", f"hit@{k}", "retrieval_ok", "answer_ok", "status"])
    na_cols = ["question_id", "type", "refused"] + (["top_score", "nothing_above_threshold"] if threshold is not None else [])
    return Attribution(records, pd.DataFrame(no_answer, columns=na_cols).set_index("question_id"), tuple(backlog),
                       k, rule, match, threshold, _table_fingerprint(table, k, corpus_version, chunking))


def _check_context_k(k: int, context_k: int | None) -> None:
    """Refuse a ``k`` other than the number of items the generator read (``context_k``), when that is known."""
    if context_k is None:
        return
    context_k = check_k(context_k, func="attribute")
    if k < context_k:
        raise InputError(f"attribute: the answers were generated from the top {context_k} retrieved items; judging "
                         f"them at k={k} would judge answers against a retrieval they were not made from. Use "
                         f"k={context_k}, or evaluate Recall@{k} of the retrieval alone.")
    if k > context_k:
        raise InputError(f"attribute: the logs hold the top {context_k} retrieved items the generator read; at "
                         f"k={k} Recall@{k} would only repeat Recall@{context_k}. Use k={context_k}.")


def _check_table(table, *, with_run: bool) -> None:
    """The attribution table is a DataFrame with the columns :func:`attribute` reads and one row per question."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"attribute: 'table' must be a pandas DataFrame, got {type(table).__name__}.")
    needed = ["question_id", "expected_answer", "gold_ids", "generated_answer"] + ([] if with_run else ["retrieved_ids"])
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise InputError(f"attribution table: missing column(s) {missing}; found {list(table.columns)}.")
    dup = table["question_id"].duplicated()
    if dup.any():
        qid = table.loc[dup, "question_id"].iloc[0]
        raise InputError(f"attribution table: question {qid!r} appears twice.", question=qid)


def _no_answer_record(qid: str, typ: str, answer, refusal_patterns, threshold, run, tops: dict) -> dict:
    """A question without an answer in the documents: whether the system refused, and, with a ``threshold``, whether
    its retrieval returned nothing scoring at least that much."""
    item = {"question_id": qid, "type": typ or "no_answer", "refused": is_refusal(answer, refusal_patterns)}
    if threshold is not None:
        if run is None or "score" not in run.columns:
            raise InputError("a no_answer threshold needs a run with a 'score' column.")
        top = tops.get(qid, -math.inf)
        item |= {"top_score": None if top == -math.inf else float(top), "nothing_above_threshold": bool(top < threshold)}
    return item


def _answered_record(row: dict, qid: str, typ: str, gold: list, ranked: list, answer, *, k: int, rule: str,
                     match: str, f1_threshold: float) -> dict:
    """A question with gold: its recall and hit at ``k``, whether its answer matches, and the status they make."""
    expected = row["expected_answer"]
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        raise InputError(f"question {qid!r}: expected_answer is null for a question with gold.", question=qid)
    recall, hit = recall_at_k(ranked, set(gold), k), hit_at_k(ranked, set(gold), k)
    retrieval_ok = recall == 1.0 if rule == "all" else hit == 1.0
    answer_ok = answer_match(answer, expected, method=match, f1_threshold=f1_threshold)
    status = ("passed" if answer_ok else "gold_found_answer_wrong") if retrieval_ok else (
        "gold_missed_answer_right" if answer_ok else "gold_missed_answer_wrong")
    rec = {"question_id": qid, "type": typ, "n_gold": len(set(gold)), f"recall@{k}": recall, f"hit@{k}": hit,
           "retrieval_ok": retrieval_ok, "answer_ok": answer_ok, "status": status}
    labels = row.get("gold_relevance")
    if isinstance(labels, dict) and labels:
        best = max(labels.values())
        rec["top_gold_retrieved"] = any(labels.get(d) == best for d in ranked[:k])
    if match == "token_f1":
        rec["answer_score"] = token_f1(answer, expected)
    faithfulness = row.get("faithfulness")
    if faithfulness is not None and not (isinstance(faithfulness, float) and math.isnan(faithfulness)):
        rec["faithfulness"] = float(faithfulness)
    return rec


def _table_fingerprint(table: pd.DataFrame, k: int, corpus_version, chunking) -> dict:
    """What two attributions must share to be compared: the labelled questions, their gold, k, corpus and chunking."""
    labelled = table[table.get("labelled", pd.Series(True, index=table.index)) != False]  # noqa: E712
    return fingerprint(
        questions=sorted(labelled["question_id"].astype(str)),
        gold={str(q): sorted(map(str, g)) for q, g in zip(labelled["question_id"], labelled["gold_ids"])},
        k=k, corpus=corpus_version, chunking=chunking,
    )


def status_table(attribution: Attribution) -> pd.DataFrame:
    """Questions per status, each status with what it measures under the attribution's rule and k (columns
    ``what it measures``, ``questions``; index ``status``)."""
    meanings = status_meanings(attribution.rule, attribution.k)
    counts = attribution.status_counts
    return pd.DataFrame({"what it measures": [meanings[s] for s in STATUSES],
                         "questions": [counts[s] for s in STATUSES]}, index=pd.Index(list(STATUSES), name="status"))


def partial_retrieval(attribution: Attribution) -> dict:
    """Of the questions whose gold documents were missed (``gold_missed_answer_*``), how many
    still had a gold document in the top k (hit@k = 1: only possible under ``rule="all"``), split by answer.

    Returns ``{"failed": n, "partial": n, "none": n, "right": n, "right_partial": n, "right_none": n}`` (``right``:
    the ``gold_missed_answer_right`` questions; ``partial``: a gold document in the context; ``none``: no gold
    document in it)."""
    rec = attribution.records
    failed = rec[~rec["retrieval_ok"].astype(bool)] if len(rec) else rec
    some = failed[f"hit@{attribution.k}"] == 1.0 if len(failed) else pd.Series(dtype=bool)
    right = failed["answer_ok"].astype(bool) if len(failed) else pd.Series(dtype=bool)
    return {"failed": int(len(failed)), "partial": int(some.sum()), "none": int((~some).sum()),
            "right": int(right.sum()), "right_partial": int((right & some).sum()),
            "right_none": int((right & ~some).sum())}


def status_summary(attribution: Attribution) -> str:
    """One sentence of the headline figures and status counts, each status named for what it measures under the
    attribution's rule (Markdown-safe: numbers and fixed words only)."""
    a, k = attribution, attribution.k
    c, p = a.status_counts, partial_retrieval(attribution)
    text = (f"Recall@{k} of gold documents {a.mean_recall:.3f}, answer accuracy {a.answer_accuracy:.3f} over "
            f"{len(a.records)} answerable questions. Retrieval counts as failed when "
            + ("a gold document is missing from the top {k} (Recall@{k} < 1, rule 'all')" if a.rule == "all"
               else "no gold document is in the top {k} (hit@{k} = 0, rule 'any')").format(k=k)
            + f": {c['gold_missed_answer_wrong']} such question(s) with a wrong answer, {c['gold_missed_answer_right']} with a "
            f"right one; {c['gold_found_answer_wrong']} wrong answer(s) with retrieval complete.")
    if a.rule == "all" and p["right"]:
        text += (f" Of the {p['right']} right answer(s) counted as retrieval failures, {p['right_partial']} had "
                 f"another gold document in the top {k} and {p['right_none']} had none.")
    return text


def join_answers(golden, answers: pd.DataFrame) -> pd.DataFrame:
    """Build the :func:`attribute` table from a :class:`~rag_metrics.io.golden.GoldenSet` and answer logs.

    ``answers``: question_id, generated_answer, and optionally retrieved_ids, faithfulness.
    A question in the answers but not in the golden set, a labelled question without an
    answer, or a missing column is an error naming it. ``gold_relevance`` holds each question's
    gold labels (``{doc: label}``).
    """
    missing = [c for c in ("question_id", "generated_answer") if c not in answers.columns]
    if missing:
        raise InputError(f"answers: missing column(s) {missing}; found {list(answers.columns)}.")
    q = golden.questions
    unknown = sorted(set(answers["question_id"]) - set(q.index))
    if unknown:
        raise InputError(f"answers: question {unknown[0]!r} is not in the golden set"
                         + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "") + ".", question=unknown[0])
    dup = answers["question_id"].duplicated()
    if dup.any():
        raise InputError(f"answers: question {answers.loc[dup, 'question_id'].iloc[0]!r} has two answers.")
    labelled = set(q.index[q["labelled"]])
    absent = sorted(labelled - set(answers["question_id"]))
    if absent:
        raise InputError(f"answers: labelled question {absent[0]!r} has no answer"
                         + (f" (and {len(absent) - 1} more)" if len(absent) > 1 else "") + ".", question=absent[0])
    with_gold = golden.gold.dropna(subset=["doc_id"])
    gold = with_gold.groupby("question_id")["doc_id"].agg(list)
    labels = {qid: dict(zip(g["doc_id"], g["relevance"].astype(float))) for qid, g in with_gold.groupby("question_id")}
    table = q.reset_index().rename(columns={"answer": "expected_answer"})
    table["gold_ids"] = [gold.get(qid, []) for qid in table["question_id"]]
    table["gold_relevance"] = [labels.get(qid, {}) for qid in table["question_id"]]
    return table.merge(answers, on="question_id", how="left")


LOOK_AT = {
    "ok": "ok",
    "retrieval": "retrieval: chunking, embeddings, hybrid search",
    "partial": "retrieval: a gold document is missing from the context, another was there (the answer may have come "
               "from it)",
    "evidence": "retrieval: no gold document in the context, yet the answer is right (the model knew it, or the text "
                "was found elsewhere)",
    "generation": "generation: prompt, model, context noise",
    "answer": "check the expected answer and document freshness",
}


def diagnose(attribution: Attribution, *, faithfulness_threshold: float = 0.7) -> pd.DataFrame:
    """Where to look, per question, from its status and a user-supplied faithfulness score.

    Retrieval is judged by the attribution's own rule (``rule="all"``: every gold document in the
    top k; ``"any"``: one), so the diagnosis never contradicts the status:

    * ``passed`` -> ok;
    * ``gold_missed_answer_wrong`` -> retrieval (chunking, embeddings, hybrid search);
    * ``gold_missed_answer_right`` -> retrieval too, in two kinds: with another gold document in the context (hit@k
      = 1, possible under ``rule="all"`` only: retrieval was incomplete, the answer may have come from what was
      there), or with no gold document in it (the model knew the answer, or found the text elsewhere);
    * ``gold_found_answer_wrong`` with faithfulness < ``faithfulness_threshold`` -> generation (prompt, model, noise);
    * ``gold_found_answer_wrong`` with a faithful answer -> check the expected answer and document freshness.

    To look only at questions that lost every gold document, attribute with ``rule="any"``.
    """
    rec = attribution.records
    if "faithfulness" not in rec.columns or rec["faithfulness"].isna().any():
        qid = rec.index[rec["faithfulness"].isna()][0] if "faithfulness" in rec.columns else None
        raise InputError("diagnose needs a faithfulness score for every answerable question"
                         + (f"; question {qid!r} has none." if qid else "; the table has no 'faithfulness' column."))
    bad = ~rec["faithfulness"].between(0, 1)
    if bad.any():
        raise InputError(f"question {rec.index[bad][0]!r}: faithfulness {float(rec['faithfulness'][bad].iloc[0])!r} is not in [0, 1].")
    status = rec["status"]
    some_gold = rec[f"hit@{attribution.k}"] == 1.0
    look = np.select(
        [status == "passed", status == "gold_missed_answer_wrong", (status == "gold_missed_answer_right") & some_gold,
         status == "gold_missed_answer_right", rec["faithfulness"] < faithfulness_threshold],
        [LOOK_AT["ok"], LOOK_AT["retrieval"], LOOK_AT["partial"], LOOK_AT["evidence"], LOOK_AT["generation"]],
        default=LOOK_AT["answer"],
    )
    return pd.DataFrame({"type": rec["type"], f"recall@{attribution.k}": rec[f"recall@{attribution.k}"],
                         "faithfulness": rec["faithfulness"], "answer_ok": rec["answer_ok"], "status": status,
                         "look_at": look}, index=rec.index)


def compare_attributions(a: Attribution, b: Attribution, *, force: bool = False) -> pd.DataFrame:
    """Status of each question in ``a`` vs ``b``, refused when questions, gold, corpus, chunking or k differ."""
    check_comparable(a.fingerprint, b.fingerprint, force=force, what="attributions")
    both = a.records[["status"]].rename(columns={"status": "status_a"}).join(
        b.records[["status"]].rename(columns={"status": "status_b"}), how="outer")
    return pd.crosstab(both["status_a"], both["status_b"])


def compare_generators(table_a: pd.DataFrame, table_b: pd.DataFrame) -> pd.DataFrame:
    """Compare two generators' answers; refused unless both saw identical retrieval results.

    Returns one row per question with ``retrieved_ids`` and both generated answers.
    """
    a = table_a.set_index("question_id")
    b = table_b.set_index("question_id")
    if set(a.index) != set(b.index):
        only = sorted(set(a.index) ^ set(b.index))
        raise NotComparableError(f"refusing to compare generators: the question sets differ (e.g. {only[:3]}).")
    differ = [q for q in a.index if list(a.at[q, "retrieved_ids"]) != list(b.at[q, "retrieved_ids"])]
    if differ:
        raise NotComparableError(
            f"refusing to compare generators: retrieval results differ for {len(differ)} question(s) "
            f"(e.g. {differ[:3]}); a generator comparison needs identical retrieved documents."
        )
    return pd.DataFrame({"retrieved_ids": a["retrieved_ids"], "answer_a": a["generated_answer"],
                         "answer_b": b.loc[a.index, "generated_answer"]})


def run_from_logs(logs: pd.DataFrame, *, ids: str = "retrieved_ids", scores: str | None = "retrieved_scores") -> pd.DataFrame:
    """Turn logged lists (one row per question) into a run table: question_id, rank, doc_id[, score]."""
    cols = ["question_id", ids] + ([scores] if scores else [])
    long = logs[cols].explode(cols[1:] if scores else ids)
    long = long.dropna(subset=[ids]).rename(columns={ids: "doc_id"} | ({scores: "score"} if scores else {}))
    long["rank"] = long.groupby("question_id", sort=False).cumcount() + 1
    if scores:
        long["score"] = long["score"].astype(float)
    return long[["question_id", "rank", "doc_id"] + (["score"] if scores else [])].reset_index(drop=True)


def logged_context_k(logs: pd.DataFrame, *, ids: str = "retrieved_ids") -> int:
    """How many retrieved items the generator was given: the longest ``ids`` list of the logs (one row per question;
    a question with fewer got fewer results). This is the ``k`` the answers were made from (:func:`attribute`'s
    ``context_k``).

    >>> logged_context_k(pd.DataFrame({"retrieved_ids": [["a", "a", "b"], ["c"]]}))
    3
    """
    if ids not in logs.columns:
        raise InputError(f"logs: no {ids!r} column; found {list(logs.columns)}.")
    lengths = [len(v) if isinstance(v, (list, tuple, np.ndarray)) else 0 for v in logs[ids]]
    if not lengths or max(lengths) == 0:
        raise InputError(f"logs: no question has any {ids!r}: the context the answers were made from is unknown.")
    return int(max(lengths))
