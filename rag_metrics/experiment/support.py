"""The full diagnosis of each answer -- retrieval x correctness x support -- and support judges measured against people.

**Diagnosis** (:func:`diagnose_answers`): per answerable question, from

* *retrieval* -- ``retrieval_ok``: a gold page among the items the generator read (the top ``context_k``); an item
  logged with a document only (the sample's ``retrieved_ids``) counts as its whole document (``retrieval_level``
  says ``"document"``); any ruler's page hit can be given instead (``retrieval=``);
* *correctness* -- ``correct`` by a meaning judge (offline :class:`~rag_metrics.judging.correctness.MeaningJudge`,
  or an LLM judge's ``correct``), always beside ``lexical_ok`` (the lexical ``match``), so a change of judge shows;
* *support* -- each claim of the answer judged against the context (:mod:`rag_metrics.judging.support`): ``full``,
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

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, NotComparableError, check_choice
from rag_metrics.io.jsonl import iter_jsonl
from rag_metrics.judging.answers import MATCHES, answer_match, is_refusal
from rag_metrics.judging.claims import content_tokens, negated, split_claims
from rag_metrics.judging.claims import canonical_quantities
from rag_metrics.judging.correctness import MeaningJudge, meaning_match
from rag_metrics.judging.support import SUPPORT_LEVELS, OfflineSupportJudge, answer_support, context_passages, support_of_answer
from rag_metrics.stats.agreement import (MIN_ITEMS, MIN_KAPPA, Kappa, PPIEstimate, cohen_kappa, headline_refusal, ppi_mean,
                                         rate_interval)
from rag_metrics.stats.intervals import clopper_pearson
from rag_metrics.stats.paired import sign_test

__all__ = ["DIAGNOSES", "diagnosis_of", "stops_short", "diagnose_answers", "Diagnosis", "diagnosis_change", "read_support_set",
           "measure_judges", "SupportAgreement", "SUPPORT_KINDS", "LOOK_AT", "judge_tasks", "diagnose_log",
           "SheetAgreement", "sheet_agreement", "support_drilldown", "SupportDrilldown", "change_claim",
           "change_table", "answer_runs", "support_set_tasks", "check_logged_answers"]

DIAGNOSES = ("passed", "label_gap", "answered_from_memory", "partially_supported", "misled", "incomplete", "retrieval_failure",
             "hallucinated", "generation_failure")
LOOK_AT = {
    "passed": "nothing",
    "label_gap": "the supporting page is not gold: hand it to labels audit",
    "answered_from_memory": "the answer is right but the judge found no support in the context: the model knew it, "
                            "or the judge missed a paraphrase (read the claims)",
    "partially_supported": "some claims have no support in the context",
    "misled": "every claim supported, the answer wrong: a passage about something else supplied it",
    "incomplete": "every claim supported, the answer stops short of a multi-part expected answer: answer every part",
    "retrieval_failure": "retrieval: chunking, embeddings, hybrid search",
    "hallucinated": "generation: the evidence was retrieved, the answer is unsupported",
    "generation_failure": "generation: prompt, model, context noise",
}
SUPPORT_KINDS = ("verbatim", "paraphrase", "number", "date", "amount", "negation", "not_in_context", "not_in_corpus",
                 "partial")


def stops_short(answer: str, expected: str) -> bool:
    """Whether a wrong ``answer`` says part of ``expected`` and nothing against it: every number it states is one of
    the expected answer's, its polarity is the expected answer's, and it shares a number or at least half of its
    content words with the expected answer. ``False``: it contradicts the expected answer (or says something else)."""
    got, want = canonical_quantities(answer), canonical_quantities(expected)
    if any(q not in want for q in got) or negated(answer) != negated(expected):
        return False
    words, expected_words = set(content_tokens(answer)), set(content_tokens(expected))
    shared_number = any(q in want for q in got)
    return shared_number or (bool(words) and 2 * len(words & expected_words) >= len(words))


def diagnosis_of(retrieval_ok: bool, correct: bool, support: str, short: bool = False, refused: bool = False) -> str:
    """The diagnosis of one answer (module docstring's table); ``short``: the wrong answer stops short of the
    expected one (:func:`stops_short`), read only for a wrong answer whose every claim is supported; ``refused``:
    the answer is a refusal ("The documents do not say."), which states nothing to be misled or hallucinated by: a
    retrieval failure when no gold item was read, else a generation failure (the evidence was there, unused)."""
    check_choice(support, SUPPORT_LEVELS, "support", func="diagnosis_of")
    if refused and not correct:
        return "generation_failure" if retrieval_ok else "retrieval_failure"
    if correct:
        if support == "full":
            return "passed" if retrieval_ok else "label_gap"
        return "partially_supported" if support == "partial" else "answered_from_memory"
    if support == "full":
        return "incomplete" if short else "misled"
    if not retrieval_ok:
        return "retrieval_failure"
    return "hallucinated" if support == "none" else "generation_failure"


@dataclass(frozen=True)
class Diagnosis:
    """Per-question diagnosis (:func:`diagnose_answers`). ``records``: question_id (index), type, answer (the
    generated one), expected, retrieval_ok,
    retrieval_level, lexical_ok, correct, correct_reason, support, n_claims, n_supported, diagnosis, context (the items
    the answer was made from, ``; ``-joined). ``claims``: one row per claim: claim_id (``question_id#n``, the n-th
    claim of the answer), question_id, claim, supported, doc_id, page, span, reason. ``excluded``: no_answer and
    unlabelled question IDs. ``judges``: the judges' parameters."""

    records: pd.DataFrame
    claims: pd.DataFrame
    excluded: dict
    judges: dict = field(default_factory=dict)

    def counts(self) -> dict:
        counts = self.records["diagnosis"].value_counts()
        return {d: int(counts.get(d, 0)) for d in DIAGNOSES}

    def rates(self, confidence: float = 0.95) -> pd.DataFrame:
        """Each diagnosis: questions, share of the answerable questions and its Clopper--Pearson interval."""
        n = len(self.records)
        counts = np.array(list(self.counts().values()))
        low, high = clopper_pearson(counts, n, confidence) if n else (np.full(len(counts), np.nan),) * 2
        return pd.DataFrame({"Diagnosis": list(DIAGNOSES), "Questions": counts,
                             "Share": counts / n if n else np.nan, "Low": low, "High": high,
                             "What to look at": [LOOK_AT[d] for d in DIAGNOSES]})

    def judges_disagree(self) -> pd.DataFrame:
        """Questions where the meaning judge and the lexical match disagree (a change of judge, made visible)."""
        r = self.records
        return r.loc[r["correct"] != r["lexical_ok"], ["lexical_ok", "correct", "correct_reason"]]

    def to_dict(self) -> dict:
        return {"judges": self.judges, "n_questions": int(len(self.records)), "counts": self.counts(),
                "excluded": self.excluded,
                "questions": [{"question_id": q, **{k: _plain(v) for k, v in row.items()}}
                              for q, row in self.records.iterrows()],
                "claims": [{k: _plain(v) for k, v in row.items()} for row in self.claims.to_dict("records")]}


def _plain(value):
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _line(row: dict):
    """The file line of an answers row (:func:`~rag_metrics.io.corpus.load_answers` keeps it), or None."""
    line = row.get("line")
    return int(line) if isinstance(line, (int, np.integer, float)) and not _missing(line) else None


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
    return not isinstance(value, (list, tuple, np.ndarray)) and _missing(value)


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

def read_support_set(path, *, corpus=None) -> pd.DataFrame:
    """A labelled support set (``data/support/README.md`` gives the fields); every problem names file, line, field.
    With ``corpus``, each context page is checked to be a page of a document it holds."""
    path = Path(path)
    n_pages = None if corpus is None else corpus.documents["n_pages"].to_dict()
    rows, seen = [], set()
    for line, obj in iter_jsonl(path, "labelled support claims (JSON lines)"):
        def bad(field_, expected):
            raise InputError(f"field {field_!r}: expected {expected}, got {obj.get(field_)!r}.", path=path, line=line)
        if not isinstance(obj.get("claim_id"), str) or not obj["claim_id"]:
            bad("claim_id", "a non-empty string")
        if obj["claim_id"] in seen:
            bad("claim_id", "an ID not used on an earlier line")
        seen.add(obj["claim_id"])
        if not isinstance(obj.get("claim"), str) or not obj["claim"].strip():
            bad("claim", "the claim's text")
        if obj.get("kind") not in SUPPORT_KINDS:
            bad("kind", f"one of {list(SUPPORT_KINDS)}")
        if obj.get("language") not in ("en", "ja"):
            bad("language", "'en' or 'ja'")
        if not isinstance(obj.get("supported"), bool):
            bad("supported", "true or false")
        ctx = obj.get("context")
        if not isinstance(ctx, list) or not ctx or not all(
                isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], int)
                and not isinstance(c[1], bool) for c in ctx):
            bad("context", "a non-empty list of [doc_id, page] pairs")
        for doc, page in ctx if n_pages is not None else ():
            who = dict(path=path, line=line, field="context")
            if doc not in n_pages:
                raise InputError(f"claim {obj['claim_id']!r}: context document {doc!r} is not in the corpus.", **who)
            if not 1 <= page <= n_pages[doc]:
                where = f"beyond its last page ({n_pages[doc]})" if page > n_pages[doc] else "not a page (from 1)"
                raise InputError(f"claim {obj['claim_id']!r}: context page {page} of {doc!r} is {where}.", **who)
        span = obj.get("span")
        if obj["supported"] != isinstance(span, dict):
            bad("span", "an object {doc_id, page, text} exactly when supported is true")
        rows.append({"claim_id": obj["claim_id"], "language": obj["language"], "kind": obj["kind"],
                     "claim": obj["claim"], "context": [tuple(c) for c in ctx], "supported": obj["supported"],
                     "span": json.dumps(span, ensure_ascii=False) if span else None})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SupportAgreement:
    """Judges' verdicts on a labelled support set (:func:`measure_judges`). ``verdicts``: claim_id, language, kind,
    human, one column per judge. ``kappas``: judge -> :class:`~rag_metrics.stats.agreement.Kappa`. A judge is usable
    for headline figures under the package's one rule (:func:`~rag_metrics.stats.agreement.headline_refusal`: at
    least ``min_items`` claims, the lower end of kappa's interval at or above ``min_kappa``)."""

    verdicts: pd.DataFrame
    kappas: dict
    min_kappa: float = MIN_KAPPA
    min_items: int = MIN_ITEMS

    def summary(self) -> pd.DataFrame:
        """Per judge: claims, accuracy, Cohen's kappa and its interval, and whether it may move a headline."""
        rows = []
        for name, k in self.kappas.items():
            acc = float((self.verdicts[name] == self.verdicts["human"]).mean())
            rows.append({"Judge": name, "Claims": k.n, "Accuracy": acc, "Kappa": k.kappa, "Low": k.low,
                         "High": k.high, "Usable for headlines": self.usable(name)})
        return pd.DataFrame(rows)

    def by_kind(self) -> pd.DataFrame:
        """Accuracy of each judge per kind of claim (rows: kinds in :data:`SUPPORT_KINDS` order, with counts)."""
        v = self.verdicts
        out = v.groupby("kind").size().rename("Claims").to_frame()
        for name in self.kappas:
            out[name] = (v[name] == v["human"]).groupby(v["kind"]).mean()
        return out.reindex([k for k in SUPPORT_KINDS if k in out.index])

    def refusal(self, judge: str) -> str | None:
        """Why ``judge`` may not move a headline figure, or None when it may (the package's one rule)."""
        return headline_refusal(self.kappas[judge], min_kappa=self.min_kappa, min_items=self.min_items)

    def usable(self, judge: str) -> bool:
        return self.refusal(judge) is None

    def require(self, judge: str, *, force: bool = False) -> None:
        """Refuse a judge below the stated agreement for headline figures, unless ``force``."""
        if judge not in self.kappas:
            raise InputError(f"no agreement measured for judge {judge!r}; measured: {list(self.kappas)}.")
        if not self.usable(judge) and not force:
            raise InputError(f"judge {judge!r} against people: {self.refusal(judge)}: refused for headline figures "
                             "(force to use it anyway).")


def support_set_tasks(claims: pd.DataFrame, corpus) -> list:
    """``("support", claim, passages)`` for every claim of a labelled support set (:func:`read_support_set`), with
    the claim's own context pages: what :func:`measure_judges` asks each judge (an LLM judge's cost estimate)."""
    return [("support", claim, context_passages([{"doc_id": d, "pages": [p]} for d, p in ctx], corpus))
            for claim, ctx in zip(claims["claim"], claims["context"])]


def measure_judges(claims: pd.DataFrame, corpus, judges: dict, *, min_kappa: float = MIN_KAPPA,
                   seed: int = 0, min_items: int = MIN_ITEMS) -> SupportAgreement:
    """Run each judge (name -> judge with ``judge(claim, passages)``) on every labelled claim, with the claim's own
    context pages (:func:`support_set_tasks`), and measure it against the human labels."""
    verdicts = claims[["claim_id", "language", "kind"]].copy()
    verdicts["human"] = claims["supported"].astype(bool).to_numpy()
    tasks = support_set_tasks(claims, corpus)
    kappas = {}
    for name, judge in judges.items():
        said = [bool(judge.judge(claim, passages)["supported"]) for _, claim, passages in tasks]
        verdicts[name] = said
        kappas[name] = cohen_kappa(verdicts["human"].to_numpy(), np.array(said), seed=seed)
    return SupportAgreement(verdicts, kappas, min_kappa, min_items)


# --- a team's own answers: a random sample of claims labelled by people, the judge measured on it --------------------

@dataclass(frozen=True)
class SheetAgreement:
    """A support judge measured on a random sample of a team's own claims (:func:`sheet_agreement`).

    ``items``: claim_id, kind (None when the sheet leaves it empty), human, judge -- the sampled claims. ``judged``:
    the judge's verdict on every judged claim (index claim_id). ``kappa``: Cohen's kappa with its interval;
    ``ppi``: the prediction-powered supported-claim rate over all judged claims
    (:func:`~rag_metrics.stats.agreement.ppi_mean`); ``judge_rate``: the judge's own supported share over all of
    them with its Clopper--Pearson interval, ``(mean, low, high, n)``. ``usable``: the package's one rule
    (:func:`~rag_metrics.stats.agreement.headline_refusal`: at least ``min_items`` claims, the lower end of kappa's
    interval at or above ``min_kappa``).
    """

    items: pd.DataFrame
    judged: pd.Series
    kappa: Kappa
    ppi: PPIEstimate
    judge_rate: tuple
    judge: str = "offline"
    min_kappa: float = MIN_KAPPA
    min_items: int = MIN_ITEMS

    @property
    def accuracy(self) -> float:
        return float((self.items["human"] == self.items["judge"]).mean())

    @property
    def usable(self) -> bool:
        return headline_refusal(self.kappa, min_kappa=self.min_kappa, min_items=self.min_items) is None

    def rates(self) -> pd.DataFrame:
        """The supported-claim rate three ways, each with its 95% interval: the judge alone over every judged claim
        (its interval covers the sampling of claims only, not the judge's errors), the people's sample alone, and
        prediction-powered (the judge's rate corrected by the sample: unbiased whatever the judge's quality)."""
        p, (jm, jl, jh, jn) = self.ppi, self.judge_rate
        rows = [("judge only, every judged claim", jm, jl, jh, jn),
                ("people's sample only", p.human_mean, p.human_low, p.human_high, p.n),
                ("prediction-powered (PPI)", p.estimate, p.low, p.high, p.N)]
        return pd.DataFrame(rows, columns=["Supported-claim rate", "Rate", "Low", "High", "Claims"])

    def by_kind(self) -> pd.DataFrame:
        """Per kind the sheet names (:data:`SUPPORT_KINDS` order): claims, accuracy, Cohen's kappa and its interval
        (None where undefined: fewer than 2 claims, or every claim in one class on both sides). Empty when the sheet
        names no kind."""
        rows = []
        known = self.items[self.items["kind"].notna()]
        for kind in [k for k in SUPPORT_KINDS if k in set(known["kind"])]:
            part = known[known["kind"] == kind]
            k = cohen_kappa(part["human"], part["judge"]) if len(part) >= 2 else None
            rows.append({"Kind": kind, "Claims": len(part),
                         "Accuracy": float((part["human"] == part["judge"]).mean()),
                         "Kappa": None if k is None else k.kappa, "Low": None if k is None else k.low,
                         "High": None if k is None else k.high})
        return pd.DataFrame(rows, columns=["Kind", "Claims", "Accuracy", "Kappa", "Low", "High"])

    def verdict(self) -> str:
        """One sentence on the judge's agreement, true for the numbers it states."""
        k = self.kappa
        if k.kappa is None:
            return (f"kappa is undefined on these {k.n} claims (people and the judge put every claim in the same "
                    "one class): the sheet cannot say how far the judge agrees with people")
        reasons = []
        if k.low < self.min_kappa:
            reasons.append(f"the interval's lower end below the stated {self.min_kappa:g}"
                           + (" (the point estimate clears it)" if k.kappa >= self.min_kappa else ""))
        if k.n < self.min_items:
            reasons.append(f"fewer than the {self.min_items} claims needed")
        where = ("not usable for headline figures: " + " and ".join(reasons) if reasons else
                 f"the interval's lower end at or above the stated {self.min_kappa:g}: usable for headline figures")
        return (f"the {self.judge} judge agrees with people at kappa {k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}] on "
                f"{k.n} claims, {where}")

    def to_dict(self) -> dict:
        return {"judge": self.judge, "claims_labelled": int(len(self.items)), "claims_judged": int(len(self.judged)),
                "accuracy": self.accuracy, "kappa": self.kappa.to_dict(), "usable": self.usable,
                "min_kappa": self.min_kappa, "verdict": self.verdict(), "ppi": self.ppi.to_dict(),
                "judge_rate": dict(zip(("mean", "low", "high", "n"), self.judge_rate)),
                "by_kind": json.loads(self.by_kind().to_json(orient="records")),
                "items": [{k: _plain(v) for k, v in row.items()} for row in self.items.to_dict("records")]}


def sheet_agreement(human: pd.Series, judged: pd.Series, *, kinds: pd.Series | None = None, judge: str = "offline",
                    min_kappa: float = MIN_KAPPA, confidence: float = 0.95, n_resamples: int = 2000,
                    seed: int = 0, min_items: int = MIN_ITEMS) -> SheetAgreement:
    """A support judge against people on a random sample of claims, and the supported-claim rate it allows.

    ``human``: the people's label (bool) of each sampled claim, index claim_id; ``judged``: the judge's verdict
    (bool) on every judged claim, index claim_id -- the sample must be drawn from these at random
    (:func:`rag_metrics.labels.support_sheet.claims_sample`), or the prediction-powered rate is biased. ``kinds``:
    the kind of each sampled claim where people named one (:data:`SUPPORT_KINDS`), else None."""
    human = pd.Series(human, dtype=object)
    judged = pd.Series(judged, dtype=object)
    unknown = [c for c in human.index if c not in judged.index]
    if unknown:
        raise InputError(f"claim {unknown[0]!r} was labelled but is not among the {len(judged)} judged claims.")
    if len(human) < 2:
        raise InputError(f"at least 2 labelled claims are needed to measure a judge; got {len(human)}.")
    kind = pd.Series(None, index=human.index, dtype=object) if kinds is None else \
        pd.Series(kinds, dtype=object).reindex(human.index)
    items = pd.DataFrame({"claim_id": list(human.index), "kind": [k if isinstance(k, str) else None for k in kind],
                          "human": [bool(v) for v in human], "judge": [bool(judged[c]) for c in human.index]})
    kappa = cohen_kappa(items["human"], items["judge"], confidence=confidence, n_resamples=n_resamples, seed=seed)
    ppi = ppi_mean(human.astype(float), judged.astype(bool), confidence=confidence)
    return SheetAgreement(items, judged.astype(bool), kappa, ppi, rate_interval(judged.astype(float),
                                                                                    confidence=confidence),
                          judge, min_kappa, min_items)


# --- the experiment report: each question's claims, and the change between two runs ----------------------------------

@dataclass(frozen=True)
class SupportDrilldown:
    """:func:`support_drilldown`: the listed questions (dicts with their claims) and how many more there were;
    renders in JupyterLab and in the report page through an autoescaped template."""

    questions: list
    more: int
    lead: str

    def __repr__(self) -> str:
        lines = [self.lead]
        for q in self.questions:
            lines.append(f"{q['question_id']} {q['diagnosis']}: {q['question']}")
            for c in q["claims"]:
                mark = {True: "supported", False: "not supported", None: "nothing to judge"}[c["supported"]]
                where = f" ({c['doc_id']} p.{c['page']})" if c["doc_id"] else ""
                lines.append(f"  {mark}{where}: {c['claim']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import render

        return render("support_claims.html.j2", questions=self.questions, more=self.more, lead=self.lead)


def _missing(value) -> bool:
    """None, NaN or pd.NA: a missing cell as pandas 2 and 3 give it back."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def support_drilldown(diagnosis: Diagnosis, questions, *, limit: int = 20) -> SupportDrilldown:
    """Each question's claims with their support, for the report's drill-down: the questions that did not pass (in
    :data:`DIAGNOSES` order, then by ID), at most ``limit``; each with its diagnosis, what to look at, the
    expected and the generated answer, and every claim -- supported or not, the supporting (or closest) document,
    page and span, and the judge's reason. ``questions``: question text by question_id."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"support_drilldown: limit must be a whole number >= 0, got {limit!r}.")
    r = diagnosis.records
    failed = sorted((q for q in r.index if r.at[q, "diagnosis"] != "passed"),
                    key=lambda q: (DIAGNOSES.index(r.at[q, "diagnosis"]), str(q)))
    by_q = {q: g for q, g in diagnosis.claims.groupby("question_id", sort=False)}
    listed = []
    for q in failed[:limit]:
        rec = r.loc[q]
        claims = by_q.get(q, diagnosis.claims.iloc[:0])
        listed.append({"question_id": q, "question": questions.get(q, ""), "diagnosis": rec["diagnosis"],
                       "look_at": LOOK_AT[rec["diagnosis"]], "expected": rec["expected"], "answer": rec["answer"],
                       "correct": bool(rec["correct"]), "lexical_ok": bool(rec["lexical_ok"]),
                       "retrieval_ok": bool(rec["retrieval_ok"]), "context": rec["context"],
                       "claims": [{"claim": c["claim"],
                                   "supported": None if _missing(c["supported"]) else bool(c["supported"]),
                                   "doc_id": c["doc_id"] if isinstance(c["doc_id"], str) else None,
                                   "page": None if _missing(c["page"]) else int(c["page"]),
                                   "span": c["span"] if isinstance(c["span"], str) else None, "reason": c["reason"]}
                                  for c in claims.to_dict("records")]})
    passed = len(r) - len(failed)
    lead = (f"The {len(failed)} of {len(r)} answerable questions that did not pass, each claim of the answer with its "
            f"support in the context the answer was made from ({passed} passed: not listed).")
    return SupportDrilldown(listed, len(failed) - len(listed), lead)


def change_claim(change: dict, before: str, after: str, *, alpha: float = 0.05) -> dict:
    """The sentence on how the diagnoses changed from ``before`` to ``after`` (:func:`diagnosis_change`), as
    :func:`rag_metrics.report.kernel.claim`'s arguments: the questions whose diagnosis changed and the change of the
    passed share with its interval and exact sign test, the p printed on its side of ``alpha``; when no diagnosis
    changed, that sentence instead."""
    from rag_metrics.stats.paired import format_p

    table = change["table"]
    moved = int(table.to_numpy().sum() - np.trace(table.to_numpy()))
    text = (f"**{moved}** of {change['n']} questions changed diagnosis from {before} to {after}; the passed share "
            f"changed by {change['change']:+.3f} [{change['low']:+.3f}, {change['high']:+.3f}] ({change['wins']} "
            f"newly passed, {change['losses']} no longer passed; exact sign test, {format_p(change['p'], alpha)}).")
    return {"condition": moved > 0, "text_if_true": text,
            "text_if_false": f"No question changed diagnosis from {before} to {after} ({change['n']} questions).",
            "name": "diagnosis_changed", "figures": {"moved": moved, "n": change["n"], "change": change["change"],
                                                    "p": change["p"], "wins": change["wins"],
                                                    "losses": change["losses"]}}


def change_table(change: dict) -> pd.DataFrame:
    """The questions that changed diagnosis (:func:`diagnosis_change`), one row per (before, after) pair with its
    count, most first; empty when none changed."""
    table = change["table"]
    rows = [{"Before": a, "After": b, "Questions": int(table.at[a, b])} for a in table.index for b in table.columns
            if a != b and table.at[a, b] > 0]
    return pd.DataFrame(rows, columns=["Before", "After", "Questions"]).sort_values(
        "Questions", ascending=False, kind="stable").reset_index(drop=True)
