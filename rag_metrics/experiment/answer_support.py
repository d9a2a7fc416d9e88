"""The full diagnosis of each answer -- retrieval x correctness x support -- and support judges measured against people.

**Diagnosis** (:func:`diagnose_answers`): per answerable question, from

* *retrieval* -- ``retrieval_ok``: a gold page among the items the generator read (the top ``context_k``); an item
  logged with a document only (the sample's ``retrieved_ids``) counts as its whole document (``retrieval_level``
  says ``"document"``); any ruler's page hit can be given instead (``retrieval=``);
* *correctness* -- ``correct`` by a meaning judge (offline :class:`~rag_metrics.answers.correctness.MeaningJudge`,
  or an LLM judge's ``correct``), always beside ``lexical_ok`` (the lexical ``match``), so a change of judge shows;
* *support* -- each claim of the answer judged against the context (:mod:`rag_metrics.answers.support`): ``full``,
  ``partial``, ``none`` or ``no claims``;

the diagnosis (:func:`diagnosis_of`; *retrieval* here is a hit when **any** gold item is in the context, so
``retrieval_failure`` below means *no* gold item was read -- notebook 05's statuses, ``gold_missed_*``, can ask for
every one):

======================  =========  =======  ===============  ===============================================
diagnosis               retrieval  correct  support          what to do
======================  =========  =======  ===============  ===============================================
passed                  hit        yes      full             nothing
label_gap               miss       yes      full             the supporting page is not gold: ``labels audit``
answered_from_memory    any        yes      none / no claims the model knew it, or the judge missed support
partially_supported     any        yes      partial          some claims have no support in the context
misled                  any        no       full, not short  a passage about something else supplied the answer
incomplete              any        no       full, short      the answer stops short of a multi-part expected one
retrieval_failure       miss       no       not full         retrieval: chunking, embeddings, hybrid search
hallucinated            hit        no       none             generation: the evidence was there, unused
generation_failure      hit        no       partial / none   generation: prompt, model, context noise
                                            claims
retrieval_failure       miss       refused  any              the model rightly said the context lacks it
generation_failure      hit        refused  any              the evidence was read, the model refused
======================  =========  =======  ===============  ===============================================

*Short* (:func:`stops_short`): a wrong answer that says part of the expected one and nothing against it.

Counts, rates with Clopper--Pearson intervals (:meth:`Diagnosis.rates`; the package's rule for a rate,
:func:`rag_metrics.stats.agreement.rate_interval`) and the paired change of the passed rate between two
runs on the same questions (:func:`diagnosis_change`: exact sign test with its interval,
:func:`rag_metrics.stats.paired.sign_test`).

**Agreement with people** (:func:`measure_judges`): each judge's verdicts on a human-labelled support set
(:func:`read_support_set`, the sample's ``data/support/claims.jsonl``): accuracy, Cohen's kappa with its interval
(:func:`rag_metrics.stats.agreement.cohen_kappa`) and accuracy per kind of claim. A judge is refused for headline
figures (:meth:`SupportAgreement.require`) unless forced when the package's one rule does not hold
(:func:`~rag_metrics.stats.agreement.headline_refusal`): fewer than ``min_items`` (20) claims compared, or the lower
end of kappa's 95% interval below ``min_kappa`` (:data:`~rag_metrics.stats.agreement.MIN_KAPPA`, 0.6).

**On a team's own answers** (:func:`sheet_agreement`): a random sample of the judged claims labelled by people
(:mod:`rag_metrics.labels.support_sheet`, ``rag-metrics answers sample`` / ``assess``) gives the judge's Cohen's
kappa on that data (per kind where people named kinds) and the supported-claim rate over every judged claim,
prediction-powered (:func:`~rag_metrics.stats.agreement.ppi_mean`) beside the judge's own.

**In the experiment report** (section 6): :func:`support_drilldown` lists each question that did not pass with its
claims' support; :func:`change_claim` and :func:`change_table` state how the diagnoses changed between two runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, NotComparableError, check_choice
from rag_metrics.experiment.answer_diagnoses import (DIAGNOSES, LOOK_AT, SUPPORT_KINDS, Diagnosis, diagnosis_of, is_missing,
                                                     stops_short)
from rag_metrics.experiment.support_agreement import (SheetAgreement, SupportAgreement, measure_judges, read_support_set,
                                                      sheet_agreement, support_set_tasks)
from rag_metrics.experiment.support_section import SupportDrilldown, change_claim, change_table, support_drilldown
from rag_metrics.answers.matching import MATCHES, answer_match, is_refusal
from rag_metrics.answers.claims import split_claims
from rag_metrics.answers.correctness import MeaningJudge, meaning_match
from rag_metrics.answers.support import OfflineSupportJudge, answer_support, context_passages, support_of_answer
from rag_metrics.stats.agreement import rate_interval
from rag_metrics.stats.paired import sign_test

__all__ = ["DIAGNOSES", "diagnosis_of", "stops_short", "diagnose_answers", "Diagnosis", "diagnosis_change", "read_support_set",
           "measure_judges", "SupportAgreement", "SUPPORT_KINDS", "LOOK_AT", "judge_tasks", "diagnose_log",
           "SheetAgreement", "sheet_agreement", "support_drilldown", "SupportDrilldown", "change_claim",
           "change_table", "answer_runs", "support_set_tasks", "check_logged_answers"]


def _line(row: dict):
    """The file line of an answers row (:func:`~rag_metrics.io.corpus.load_answers` keeps it), or None."""
    line = row.get("line")
    return int(line) if isinstance(line, (int, np.integer, float)) and not is_missing(line) else None


def _items(row: dict, context_k: int | None, source=None) -> list:
    """The top ``context_k`` (None: all) items of an answer's context, read as a retrieval log's items are
    (:func:`~rag_metrics.io.logs.read_context`): ``{"doc_id", "pages", "text"}`` mappings from ``retrieved``, or
    document IDs from ``retrieved_ids``. Errors name ``source``, the row's line and its question."""
    from rag_metrics.io.logs import read_context, read_document_ids

    qid, line = row["question_id"], _line(row)
    where = dict(who=f"question {qid!r}", path=source, line=line)
    items = row.get("retrieved")
    if isinstance(items, np.ndarray):
        items = items.tolist()
    if not _missing_value(items):
        return read_context(items, **where)[:context_k]
    ids = row.get("retrieved_ids")
    if not _missing_value(ids):
        return read_document_ids(ids, **where)[:context_k]
    raise InputError(f"question {qid!r}: the log has neither 'retrieved' items nor 'retrieved_ids'.", path=source,
                     line=line, question=qid, field="retrieved_ids")


def _missing_value(value) -> bool:
    """A cell with nothing in it: absent (None, NaN, pd.NA); a list, even empty, is a value."""
    return not isinstance(value, (list, tuple, np.ndarray)) and is_missing(value)


def check_logged_answers(golden, answers: pd.DataFrame, corpus=None, *, source=None) -> None:
    """What judging ``answers`` (one generator's) would refuse, refused up front, each problem naming the file
    (``source``, default ``answers.attrs["source"]``), the line and the question: a missing question_id or
    generated_answer column, a question answered twice or not in the golden set, an answer that is not text, a
    context that does not read as a log's items (:func:`_items`) and -- with ``corpus`` -- a context document the
    corpus does not hold (an item without text is looked up there) or a page beyond its document's last page."""
    from rag_metrics.io.corpus import answer_text

    source = source if source is not None else answers.attrs.get("source")
    missing = [c for c in ("question_id", "generated_answer") if c not in answers.columns]
    if missing:
        raise InputError(f"answers: missing column(s) {missing}; found {list(answers.columns)}.", path=source)
    n_pages = None if corpus is None else corpus.documents["n_pages"].to_dict()
    seen, questions = {}, set(golden.questions.index)
    for row in answers.to_dict("records"):
        qid, line = row["question_id"], _line(row)
        where = dict(path=source, line=line, question=qid)
        if qid in seen:
            also = f" (also at line {seen[qid]})" if seen[qid] is not None else ""
            raise InputError(f"question {qid!r} has two answers{also}; keep one generator's (e.g. --generator).",
                             field="question_id", **where)
        seen[qid] = line
        if qid not in questions:
            raise InputError(f"question {qid!r} is not in the golden set.", field="question_id", **where)
        answer_text(row["generated_answer"], who=f"question {qid!r}", path=source, line=line)
        if _missing_value(row.get("retrieved")) and _missing_value(row.get("retrieved_ids")):
            continue  # no context logged: judging refuses it where it needs one
        field = "retrieved" if not _missing_value(row.get("retrieved")) else "retrieved_ids"
        items = _items(row, None, source)
        for rank, item in enumerate(items if n_pages is not None else (), start=1):
            doc = item if isinstance(item, str) else item["doc_id"]
            text = None if isinstance(item, str) else item["text"]
            pages = [] if isinstance(item, str) else item["pages"]
            who = f"question {qid!r}, {field} item {rank}"
            if doc not in n_pages and not (isinstance(text, str) and text.strip()):
                raise InputError(f"{who}: document {doc!r} is not in the corpus; check --pages and the doc_id.",
                                 field=field, **where)
            if doc in n_pages and pages and max(pages) > n_pages[doc]:
                raise InputError(f"{who}: page {max(pages)} of {doc!r} is beyond its last page ({n_pages[doc]}); "
                                 "check the page and that the documents are the ones the generator read from.",
                                 field=field, **where)


def _item_label(item) -> str:
    """A context item as a person looks it up: ``doc_id``, ``doc_id p.2-3``, or the start of a text-only item."""
    if isinstance(item, str):
        return item
    doc, pages = item.get("doc_id"), item.get("pages")
    if doc is None:
        text = str(item.get("text") or "")
        return f"text: {text[:60]}{'...' if len(text) > 60 else ''}"
    return f"{doc} p.{', '.join(str(p) for p in pages)}" if pages else str(doc)


def _retrieval_hit(items: list, gold_pages: set, gold_docs: set) -> tuple[bool, str]:
    level = "page"
    for item in items:
        doc = item if isinstance(item, str) else item.get("doc_id")
        pages = None if isinstance(item, str) else item.get("pages")
        if pages:
            if any((doc, int(p)) in gold_pages for p in pages):
                return True, level
        else:
            level = "document"
            if doc in gold_docs:
                return True, level
    return False, level


def _answerable(golden, answers: pd.DataFrame, context_k: int, excluded: dict, corpus=None):
    """``(question_id, question row, expected, answer, context items, (retrieval_ok, level))`` of every answerable
    question with a logged answer, once every answer is checked (:func:`check_logged_answers`); the others are listed in
    ``excluded``."""
    from rag_metrics.io.corpus import answer_text

    source = answers.attrs.get("source")
    check_logged_answers(golden, answers, corpus, source=source)
    q = golden.questions
    pages_by_q = golden.pages_by_question()
    docs_by_q = golden.gold.dropna(subset=["doc_id"]).groupby("question_id")["doc_id"].agg(set).to_dict()
    by_q = {r["question_id"]: r for r in answers.to_dict("records")}
    for qid, question in q.iterrows():
        if not question["labelled"]:
            excluded["unlabelled"].append(qid)
            continue
        expected = question["answer"]
        if question["type"] == "no_answer" or not isinstance(expected, str) or not docs_by_q.get(qid):
            excluded["no_answer"].append(qid)
            continue
        row = by_q.get(qid)
        if row is None:
            excluded["no_log"].append(qid)
            continue
        answer = answer_text(row["generated_answer"], who=f"question {qid!r}", path=source, line=_line(row))
        items = _items(row, context_k, source)
        yield qid, question, expected, answer, items, _retrieval_hit(items, set(pages_by_q.get(qid, ())),
                                                                    docs_by_q.get(qid, set()))


def answer_runs(answers: pd.DataFrame, generators=(), *, source="answers", pair: bool = False) -> list:
    """``[(generator, its answers)]`` to judge: those of each name in ``generators`` (at most two), or -- none named
    -- of the one generator the answers hold; answers without a ``generator`` column are one run, ``"answers"``
    (``generators`` then unused). Several generators and none named is an error naming ``source`` (``pair``: the
    caller may name two, to compare them)."""
    names = sorted(set(answers["generator"])) if "generator" in answers.columns else []
    chosen = list(generators) or (names if len(names) <= 1 else [])
    if not chosen and names:
        raise InputError(f"{source}: answers of {len(names)} generators ({', '.join(map(str, names))}); "
                         "choose one with --generator" + (" (twice to compare two)." if pair else "."))
    if len(chosen) > 2 or (names and any(g not in names for g in chosen)):
        raise InputError(f"--generator: expected one or two of {names}, got {chosen}.")
    return [(g, answers[answers["generator"] == g]) for g in chosen] if names else [("answers", answers)]


def judge_tasks(golden, answers: pd.DataFrame, corpus, *, context_k: int = 3) -> list:
    """What an LLM judge would be asked by :func:`diagnose_answers` -- ``("support", claim, passages, question)`` per
    claim (the judge reads each claim with its question) and
    ``("correct", answer, expected, question)`` per question -- for its cost estimate before any call."""
    tasks = []
    for _, question, expected, answer, items, _ in _answerable(golden, answers, context_k, {"no_answer": [],
                                                                                          "unlabelled": [],
                                                                                          "no_log": []}, corpus):
        passages = context_passages(items, corpus)
        tasks += [("support", claim, passages, question["question"]) for claim in split_claims(answer)]
        tasks.append(("correct", answer, expected, question["question"]))
    return tasks


def diagnose_answers(golden, answers: pd.DataFrame, corpus, *, judge=None, correctness=None, context_k: int = 3,
                     match: str = "contains", retrieval: dict | None = None) -> Diagnosis:
    """Diagnose every answerable question of ``golden`` (module docstring).

    ``answers``: one row per question: question_id, generated_answer and ``retrieved`` (items with doc_id, pages,
    text) or ``retrieved_ids``; ``judge``: a support judge (default :class:`OfflineSupportJudge`); ``correctness``: a
    meaning judge called ``(predicted, expected)`` -> bool, or an object with ``correct(predicted, expected,
    question)`` -> ``{"correct", "reason"}`` (default :class:`MeaningJudge`); ``context_k``: the items the generator
    read; ``retrieval``: ``{question_id: bool}`` from any ruler, instead of the log's own items -- a *hit* ruler
    (some gold page or document in the context): ``label_gap`` says the support came from a page that is not gold,
    which only a miss of every gold item guarantees.
    """
    check_choice(match, MATCHES, "match", func="diagnose_answers")
    judge = judge if judge is not None else OfflineSupportJudge()
    correctness = correctness if correctness is not None else MeaningJudge()
    rows, claim_rows, context, excluded = [], [], {}, {"no_answer": [], "unlabelled": [], "no_log": []}
    for qid, question, expected, answer, items, (ok, level) in _answerable(golden, answers, context_k, excluded,
                                                                           corpus):
        if retrieval is not None:
            if qid not in retrieval:
                raise InputError(f"retrieval: no verdict for question {qid!r}.", question=qid)
            ok, level = bool(retrieval[qid]), "given"
        claims = support_of_answer(answer, context_passages(items, corpus), judge, question=question["question"])
        if hasattr(correctness, "correct"):
            verdict = correctness.correct(answer, expected, question["question"])
        elif isinstance(correctness, MeaningJudge):
            verdict = meaning_match(answer, expected, min_overlap=correctness.min_overlap)
        else:
            verdict = {"correct": bool(correctness(answer, expected)), "reason": ""}
        support = answer_support(claims)
        rows.append({"question_id": qid, "type": question["type"], "answer": answer, "expected": expected,
                     "retrieval_ok": ok, "retrieval_level": level,
                     "lexical_ok": answer_match(answer, expected, method=match), "correct": bool(verdict["correct"]),
                     "correct_reason": verdict["reason"], "support": support, "n_claims": len(claims),
                     "n_supported": sum(bool(c["supported"]) for c in claims),
                     "diagnosis": diagnosis_of(ok, bool(verdict["correct"]), support,
                                               short=stops_short(answer, expected), refused=is_refusal(answer))})
        claim_rows += [{"claim_id": f"{qid}#{n}", "question_id": qid,
                        **{k: c[k] for k in ("claim", "supported", "doc_id", "page", "span", "reason")}}
                       for n, c in enumerate(claims, start=1)]
        context[qid] = "; ".join(dict.fromkeys(_item_label(item) for item in items))  # a document once
    records = pd.DataFrame(rows, columns=["question_id", "type", "answer", "expected", "retrieval_ok",
                                          "retrieval_level", "lexical_ok",
                                          "correct", "correct_reason", "support", "n_claims", "n_supported",
                                          "diagnosis"]).set_index("question_id")
    records["context"] = pd.Series(context, dtype=object).reindex(records.index)
    claims = pd.DataFrame(claim_rows, columns=["claim_id", "question_id", "claim", "supported", "doc_id", "page",
                                               "span", "reason"])
    judges = {"support": judge.params() if hasattr(judge, "params") else type(judge).__name__,
              "correctness": correctness.params() if hasattr(correctness, "params") else type(correctness).__name__,
              "lexical": match, "context_k": context_k}
    return Diagnosis(records, claims, excluded, judges)


def diagnose_log(golden, answers: pd.DataFrame, corpus, *, generator=None, judge=None,
                 retrieval: dict | None = None) -> Diagnosis:
    """:func:`diagnose_answers` of one generator's logged answers (``generator``; required when the log holds
    several) at the context the log records (:func:`~rag_metrics.experiment.attribution.logged_context_k`);
    ``retrieval``: ``{question_id: bool}`` from the caller's ruler (the experiment report passes its statuses')."""
    from rag_metrics.experiment.attribution import logged_context_k

    if "generator" in answers.columns:
        names = sorted(set(answers["generator"]))
        if generator is None and len(names) > 1:
            raise InputError(f"answers of {len(names)} generators ({', '.join(map(str, names))}): choose one.")
        if generator is not None:
            if generator not in names:
                raise InputError(f"no answer of generator {generator!r}; the answers hold {names}.")
            answers = answers[answers["generator"] == generator]
    return diagnose_answers(golden, answers, corpus, judge=judge, context_k=logged_context_k(answers),
                            retrieval=retrieval)


def diagnosis_change(a: Diagnosis, b: Diagnosis, *, alpha: float = 0.05) -> dict:
    """How the diagnoses of two runs on the same questions differ: ``table`` (a's diagnosis x b's), and the change
    of the passed rate from a to b with its exact sign test (``change``, ``low``, ``high``, ``p``, ``wins``,
    ``losses``, ``n``)."""
    if set(a.records.index) != set(b.records.index):
        only = sorted(set(a.records.index) ^ set(b.records.index))
        raise NotComparableError(f"refusing to compare diagnoses: the questions differ (e.g. {only[:3]}).")
    da, db = a.records["diagnosis"], b.records["diagnosis"].reindex(a.records.index)
    table = pd.crosstab(pd.Categorical(da, DIAGNOSES), pd.Categorical(db, DIAGNOSES), dropna=False,
                        rownames=["a"], colnames=["b"])
    pa, pb = da == "passed", db == "passed"
    wins, losses, n = int((pb & ~pa).sum()), int((pa & ~pb).sum()), int(len(da))
    test = sign_test(wins, losses, n, alpha=alpha)
    return {"table": table, "change": (wins - losses) / n if n else float("nan"), "low": float(test["low"]),
            "high": float(test["high"]), "p": float(test["p"]), "wins": wins, "losses": losses, "n": n}


# --- a human-labelled support set, and judges measured against it --------------------------------------------------
