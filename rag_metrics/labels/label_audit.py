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
page answers the question: it becomes gold) or ``reject`` (a human label of non-relevance). Reading those decisions
and writing the new golden set is :mod:`rag_metrics.labels.decisions`; notebook 09's sentences about the audit are in
:mod:`rag_metrics.lab.labels_lesson`.

:func:`labels_summary` gives the judged share (the share of retrieved top-k pages that carry a human label) and the
audit's counts for one run, for the experiment report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.core.files import check_output, publish_files
from rag_metrics.answers.matching import normalize_answer
from rag_metrics.judging.judges import shared_spans
from rag_metrics.core.text import fold_with_index, normalize
from rag_metrics.labels.assessors import answer_sentences, find_answer, retrieved_pages
from rag_metrics.golden.flags import near_duplicates
from rag_metrics.golden.review_file import review_text

__all__ = ["audit_labels", "check_matches", "LabelAudit", "labels_summary", "AUDIT_COLUMNS", "AUDIT_DECISIONS"]

AUDIT_COLUMNS = ["candidate_id", "question_id", "decision", "reasons", "question", "answer", "doc_id", "page", "group",
                 "why", "answer_found", "shared_chars", "best_rank", "runs"]
AUDIT_DECISIONS = ("pending", "accept", "reject")


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
            folded = fold_with_index(text)[0] if folded is None else folded
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
