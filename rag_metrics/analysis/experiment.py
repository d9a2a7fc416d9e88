"""One experiment run, end to end: a retrieval log judged against a golden set, with every view a report needs.

:func:`evaluate_log` takes a golden set (:mod:`rag_metrics.io.golden`), a retrieval log
(:mod:`rag_metrics.io.logs`) and -- for judging logged text -- the corpus it was retrieved from
(:mod:`rag_metrics.io.corpus`). It

1. matches the log to the golden set: questions by ID (or by question text when the log has no
   IDs), documents exactly or by file name (:func:`rag_metrics.io.logs.resolve_documents`);
   questions in the log but not in the golden set are reported and not used; labelled questions
   missing from the log, and questions the retriever failed on, are empty rankings (counted);
2. judges every retrieved item with each judge that applies -- document always; page metadata
   when the log has pages; page markers when its text holds ``[p.N]`` markers; content overlap
   when it has text and the corpus is given -- and evaluates page-level hit@k, MRR and Recall@k
   under each (:mod:`rag_metrics.measures.pages`); the *primary* judge (overlap, else page, else
   document) gives the headline;
3. adds the document-level measures, chunk-level ones when the golden set gives chunk IDs,
   the failure breakdown, the no_answer questions and the backlog, latency, and retrieval vs
   generation statuses when answers are present.

The :class:`ExperimentResult` renders as HTML in JupyterLab; :meth:`ExperimentResult.explain` shows
one question's drill-down (gold pages, the top-k items with their judgments and the text they
share with a gold page highlighted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..errors import InputError, check_int
from ..judging.judges import DocumentJudge, MarkerJudge, OverlapJudge, PageIndex, PageJudge, judge_run, shared_spans
from ..measures.evaluation import Evaluation, evaluate
from ..measures.pages import evaluate_judged
from ..text import PAGE_MARKER, normalize
from .failures import FAILURE_KINDS, GROUP_MISSING, failure_breakdown_judged
from .stats import bootstrap_ci

__all__ = ["evaluate_log", "ExperimentResult", "headline_table"]

PRIMARY_ORDER = ("overlap", "page", "marker", "document")


def _question_map(golden, log) -> tuple[dict, list]:
    """log key -> golden question ID (by ID, else by whitespace-normalized question text); unknown log questions."""
    ids = set(golden.questions.index)
    by_text = {" ".join(str(t).split()): q for q, t in golden.questions["question"].items()}
    mapping, unknown = {}, []
    for qid, text in zip(log.questions["question_id"], log.questions["question"]):
        key = qid if qid is not None else f"text:{text}"
        if qid is not None:
            target = qid if qid in ids else None
        else:
            target = by_text.get(" ".join(str(text).split()))
        if target is None:
            unknown.append(qid if qid is not None else text)
        else:
            mapping[key] = target
    return mapping, unknown


def _applicable(log, corpus, run) -> list[str]:
    names = ["document"]
    if log.has_pages:
        names.append("page")
    texts = run["text"].dropna()
    if len(texts) and texts.map(lambda t: PAGE_MARKER.search(t) is not None).any():
        names.append("marker")
    if len(texts) and corpus is not None:
        names.append("overlap")
    return names


@dataclass
class ExperimentResult:
    """Everything :func:`evaluate_log` computed (see the module docstring). Tables are pandas; figures
    are per question (NaN = undefined, excluded from means and counted)."""

    name: str
    golden: object
    log: object
    corpus: object
    run: pd.DataFrame
    ks: tuple
    judges: dict
    primary: str
    judged: dict
    pages: dict
    document: Evaluation
    chunk: Evaluation | None
    failures: pd.DataFrame
    unknown_questions: list
    missing_questions: list
    failed_questions: list
    documents: dict
    settings: dict = field(default_factory=dict)
    question_map: dict = field(default_factory=dict)

    def answers(self) -> pd.Series:
        """The answers logged with the questions, indexed by golden question ID (empty when none)."""
        out = {}
        for qid, text, answer in zip(self.log.questions["question_id"], self.log.questions["question"],
                                     self.log.questions["answer"]):
            key = qid if qid is not None else f"text:{text}"
            if answer is not None and key in self.question_map:
                out[self.question_map[key]] = str(answer)
        return pd.Series(out, dtype=object, name="generated_answer")

    @property
    def headline_measures(self) -> list[str]:
        names = [f"hit@{k}" for k in self.ks] + ["mrr"]
        multi = (self.golden.gold_pages.groupby("question_id").size() > 1).any()
        groups = [f"sufficiency@{max(self.ks)}"] if getattr(self.golden, "has_groups", False) else []
        return names + ([f"recall@{max(self.ks)}"] if multi else []) + groups

    @property
    def evaluation(self) -> Evaluation:
        """The page-level evaluation under the primary judge: the headline figures."""
        return self.pages[self.primary]

    def headline(self, n_resamples: int = 10_000) -> pd.DataFrame:
        """n, hit@k, MRR (and Recall@k) with 95% bootstrap CIs, under the primary judge."""
        return headline_table({self.name: self.evaluation.per_question}, self.headline_measures,
                              n_resamples=n_resamples)

    def judges_table(self) -> pd.DataFrame:
        """The same figures under every judge that applies, side by side ("suspect the ruler first")."""
        rows = {}
        for name, ev in self.pages.items():
            s = ev.summary_dict()
            rows[name] = {"judge": _describe(self.judges[name]), **{m: s[m]["mean"] for m in self.headline_measures},
                          "n": s["mrr"]["evaluated"]}
        rows["document level (gold documents)"] = {
            "judge": "document IDs against gold_docs",
            **{m: self.document.summary_dict().get(m, {}).get("mean") for m in self.headline_measures},
            "n": self.document.summary_dict()["mrr"]["evaluated"]}
        if self.chunk is not None:
            rows["chunk level (gold chunk IDs)"] = {
                "judge": "chunk IDs against gold_chunks",
                **{m: self.chunk.summary_dict().get(m, {}).get("mean") for m in self.headline_measures},
                "n": self.chunk.summary_dict()["mrr"]["evaluated"]}
        table = pd.DataFrame.from_dict(rows, orient="index")
        table.index.name = "ruler"
        return table

    def by_type(self) -> pd.DataFrame:
        """The primary judge's figures per question type (``n``: questions evaluated)."""
        table = self.evaluation.by("type")
        means = table["mean"].unstack("measure")[self.headline_measures]
        means.insert(0, "n", table["evaluated"].unstack("measure")["mrr"].astype(int))
        return means[means["n"] > 0]

    def failure_counts(self) -> pd.DataFrame:
        """Questions per failure kind; with evidence groups, also ``group_missing`` (a hit, but a group missing)."""
        kinds = FAILURE_KINDS + ((GROUP_MISSING,) if getattr(self.golden, "has_groups", False) else ())
        counts = self.failures["failure"].value_counts()
        return pd.DataFrame({"questions": [int(counts.get(k, 0)) for k in kinds],
                             "question IDs": [", ".join(self.failures.loc[self.failures["failure"] == k, "question_id"])
                                              for k in kinds]}, index=pd.Index(kinds, name="failure"))

    def no_answer(self) -> pd.DataFrame:
        """The no_answer questions: what came back for them (they have no gold; evaluated apart)."""
        q = self.golden.labelled
        ids = q.index[q["type"] == "no_answer"]
        top = self.run[self.run["rank"] == 1].set_index("question_id")
        answers = self.answers()
        rows = []
        for qid in ids:
            rows.append({"question_id": qid, "question": q.at[qid, "question"],
                         "retrieved": int((self.run["question_id"] == qid).sum()),
                         "top_document": top["doc_id"].get(qid), "top_score": top["score"].get(qid),
                         "answer": answers.get(qid)})
        return pd.DataFrame(rows, columns=["question_id", "question", "retrieved", "top_document", "top_score", "answer"])

    def misses(self, k: int | None = None) -> list:
        """Answerable questions with no judged hit in the top ``k`` (default the largest k), golden order."""
        k = max(self.ks) if k is None else k
        values = self.evaluation.per_question[f"hit@{k}"]
        return [q for q, v in values.items() if v == 0.0]

    def explain_data(self, question_id, k: int | None = None) -> dict:
        """One question's drill-down as plain data (see :meth:`explain`)."""
        k = max(self.ks) if k is None else k
        if question_id not in self.golden.questions.index:
            raise InputError(f"question {question_id!r} is not in the golden set.", question=question_id)
        q = self.golden.questions.loc[question_id]
        gold = self.golden.gold_pages[self.golden.gold_pages["question_id"] == question_id]
        gold_pages = list(zip(gold["doc_id"], gold["page"]))
        judged = self.judged[self.primary]
        rows = judged[(judged["question_id"] == question_id) & (judged["rank"] <= k)].sort_values("rank")
        index = PageIndex(self.corpus) if self.corpus is not None else None
        judge = self.judges[self.primary]
        window = getattr(judge, "window", 1)
        f = getattr(judge, "min_chars", 24)
        items = []
        for row in rows.itertuples(index=False):
            verdicts = {name: bool(set(j.loc[(j["question_id"] == question_id) & (j["rank"] == row.rank),
                                             "satisfies"].iloc[0])) for name, j in self.judged.items()}
            text = row.text if isinstance(row.text, str) else None
            segments = [(text or "", False)]
            longest = 0
            if text is not None and index is not None:
                norm = normalize(text)
                near = [index.normalized((d, p2)) for d, p in gold_pages for p2 in range(p - window, p + window + 1)
                        if (d, p2) in index.raw]
                spans = shared_spans(norm, near, f)
                short = shared_spans(norm, near, max(8, f // 2)) if not spans else []
                longest = max((b - a for a, b in spans or short), default=0)
                segments = _segments(norm, spans or short)
            items.append({"rank": int(row.rank), "doc_id": row.doc_id, "logged_doc_id": row.logged_doc_id,
                          "pages": list(row.pages), "score": None if row.score != row.score else float(row.score),
                          "verdicts": verdicts, "hit": verdicts[self.primary], "segments": segments,
                          "longest": longest, "threshold": f})
        return {"question_id": question_id, "question": q["question"], "type": q["type"],
                "answer": q["answer"], "gold": gold_pages, "k": k, "primary": self.primary,
                "judge": _describe(judge), "items": items,
                "hit": any(i["hit"] for i in items), "normalized": index is not None}

    def explain(self, question_id, k: int | None = None):
        """One question's drill-down, rendered inline in JupyterLab (an object with ``_repr_html_``)."""
        return _Html("explain.html.j2", {"q": self.explain_data(question_id, k)})

    def _repr_html_(self) -> str:  # pragma: no cover - notebooks
        from ..html import render, table

        return render("experiment_summary.html.j2", name=self.name, n_questions=len(self.golden.labelled),
                      headline=table(self.headline(n_resamples=2000), float_format=lambda v: f"{v:.3f}"),
                      judges=table(self.judges_table(), float_format=lambda v: f"{v:.3f}"),
                      failures=table(self.failure_counts()), settings=self.settings,
                      unknown=self.unknown_questions, missing=self.missing_questions, failed=self.failed_questions)


class _Html:
    """Rendered on display in JupyterLab; plain text elsewhere."""

    def __init__(self, template, context):
        self.template, self.context = template, context

    def __repr__(self) -> str:
        q = self.context.get("q", {})
        return f"<drill-down of question {q.get('question_id')!r}: {'hit' if q.get('hit') else 'miss'} in the top {q.get('k')}>"

    def _repr_html_(self) -> str:
        from ..html import render

        return render(self.template, **self.context)


def _segments(text: str, spans) -> list[tuple[str, bool]]:
    out, pos = [], 0
    for a, b in spans:
        if a > pos:
            out.append((text[pos:a], False))
        out.append((text[a:b], True))
        pos = b
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def _describe(judge) -> str:
    params = {k: v for k, v in judge.params().items() if k != "judge"}
    return judge.name + (" (" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")" if params else "")


def headline_table(per_question: dict, measures, *, n_resamples: int = 10_000) -> pd.DataFrame:
    """One row per run: n and each measure's mean with its 95% bootstrap CI (``{run: per-question table}``)."""
    rows = {}
    for name, pq in per_question.items():
        row = {"n": int(pq[measures[0]].notna().sum())}
        for m in measures:
            mean, low, high, _ = bootstrap_ci(pq[m], n_resamples=n_resamples)
            row |= {m: mean, f"{m} low": low, f"{m} high": high}
        rows[name] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "run"
    return table


def evaluate_log(golden, log, corpus=None, *, ks=(1, 3, 5), min_chars: int = 24, window: int = 1,
                 primary: str | None = None) -> ExperimentResult:
    """Judge and evaluate a retrieval log (module docstring).

    Parameters
    ----------
    golden : GoldenSet
    log : RunLog
    corpus : Corpus, optional
        The documents the log was retrieved from; needed to judge logged text by content overlap.
    ks : cutoffs for hit@k (Recall@k at the largest).
    min_chars, window : the overlap judge's F and page window (the page and marker judges use the window).
    primary : judge of the headline; default the first that applies of overlap, page, marker, document.
    """
    ks = tuple(sorted({check_int(k, "k") for k in ks}))
    if not ks:
        raise InputError("give at least one cutoff k.")
    qmap, unknown = _question_map(golden, log)
    run = log.run.copy()
    run["key"] = [q if q is not None else f"text:{t}" for q, t in zip(run["question_id"], run["question"])]
    run = run[run["key"].isin(qmap)].copy()
    run["question_id"] = run["key"].map(qmap)
    known = corpus.documents.index if corpus is not None else golden.gold["doc_id"].dropna().unique()
    from ..io.logs import resolve_documents

    mapping, documents = resolve_documents(run["doc_id"], known)
    run["logged_doc_id"] = run["doc_id"]
    run["doc_id"] = [mapping.get(d) or d if d is not None else None for d in run["doc_id"]]
    run["chunk_id"] = [c if c is not None else f"{q}#{r}" for c, q, r in zip(run["chunk_id"], run["question_id"],
                                                                          run["rank"])]
    if run["doc_id"].isna().any() and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        row = run[run["doc_id"].isna()].iloc[0]
        raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: no doc_id, and the golden set "
                         "has no gold chunk IDs to judge it by; map a document with --field doc_id=PATH.",
                         path=log.source, line=int(row["line"]), field="doc_id")
    run = run.drop(columns=["key"]).reset_index(drop=True)

    names = _applicable(log, corpus, run)
    judges = {"document": DocumentJudge(), "page": PageJudge(window=window), "marker": MarkerJudge(window=window),
              "overlap": OverlapJudge(min_chars=min_chars, window=window)}
    judges = {n: judges[n] for n in names}
    if primary is None:
        primary = next(n for n in PRIMARY_ORDER if n in judges)
    elif primary not in judges:
        raise InputError(f"judge {primary!r} does not apply to this log (applicable: {', '.join(judges)}).",
                         field="judge")
    measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"]
    if golden.has_groups:
        measures += [f"sufficiency@{k}" for k in ks]
    judged, pages = {}, {}
    with_doc = run[run["doc_id"].notna()]
    index = PageIndex(corpus) if corpus is not None else None
    for name, judge in judges.items():
        judged[name] = judge_run(with_doc, None, golden.gold_pages, judge, index)
        pages[name] = evaluate_judged(golden, judged[name], measures, judge.params())
    document = evaluate(golden.document_gold(), with_doc[["question_id", "rank", "doc_id"]], measures)
    chunk = None
    if golden.gold_chunks is not None and len(golden.gold_chunks) and run["chunk_id"].notna().any():
        gold_chunks = golden.gold_chunks.merge(golden.gold[["question_id", "type"]].drop_duplicates(), on="question_id")
        chunk = evaluate(gold_chunks, run[["question_id", "rank", "chunk_id"]],
                         [m for m in measures if not m.startswith("sufficiency")], level="chunk")  # no chunk groups
    failures = failure_breakdown_judged(golden, judged[primary], max(ks))
    failed = [qmap[q if q is not None else f"text:{t}"] for q, t, e in
              zip(log.questions["question_id"], log.questions["question"], log.questions["error"])
              if e is not None and (q if q is not None else f"text:{t}") in qmap]
    logged_any = set(qmap.values())
    missing = [q for q in golden.labelled.index if q not in logged_any]
    settings = {"log": log.source, "golden": golden.source, "golden_fingerprint": golden.fingerprint(),
                "corpus": getattr(corpus, "source", None), "ks": list(ks), "primary": primary,
                "judge": judges[primary].params(), "judges": {n: j.params() for n, j in judges.items()},
                "log_fingerprint": log.fingerprint(), "read": log.settings.get("read"),
                "run_settings": {k: v for k, v in log.settings.items() if k != "read"}}
    return ExperimentResult(log.name, golden, log, corpus, run, ks, judges, primary, judged, pages, document, chunk,
                            failures, unknown, missing, failed, documents, settings, qmap)

