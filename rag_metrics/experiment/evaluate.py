"""One experiment run, end to end: a retrieval log judged against a golden set, with every view a report needs.

:func:`evaluate_log` takes a golden set (:mod:`rag_metrics.io.golden`), a retrieval log
(:mod:`rag_metrics.io.logs`) and -- for judging logged text -- the corpus it was retrieved from
(:mod:`rag_metrics.io.corpus`). It

1. takes the log matched to the golden set when it was read (:func:`rag_metrics.io.logs.match_log`;
   matched here when it was read without them): questions by ID (or by question text when the log has no
   IDs), documents exactly or by the longest unique path suffix; text-only items are placed on the pages;
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

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_int
from rag_metrics.core.html import render
from rag_metrics.core.html import table as html_table
from rag_metrics.core.text import PAGE_MARKER, normalize
from rag_metrics.io.logs import log_key, match_log
from rag_metrics.judging.audit import audit_pages, check_pages_in_documents
from rag_metrics.judging.index import PageIndex, boilerplate_lines
from rag_metrics.judging.judges import PRIMARY_ORDER, DocumentJudge, MarkerJudge, OverlapJudge, PageJudge, describe_judge, judge_run, judged_frame
from rag_metrics.judging.locate import locate_items, place_text_only
from rag_metrics.measures.distributed import combine_per_question, map_by_question
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.measures.pages import evaluate_judged
from rag_metrics.measures.result import JUDGED_WARNING, Evaluation
from rag_metrics.experiment.attribution import attribute, join_answers, status_summary, status_table
from rag_metrics.experiment.failures import FAILURE_KINDS, GROUP_MISSING, failure_breakdown_judged
from rag_metrics.experiment.rulers import ruler_changes, ruler_disagreements, ruler_table, unfindable_gold
from rag_metrics.stats.intervals import N_RESAMPLES, mean_table

__all__ = ["evaluate_log", "ExperimentResult", "headline_table", "applicable_judges", "check_judge", "prepare_log",
           "GenerationView", "latency_table", "judge_and_evaluate"]



def _place_pages(run: pd.DataFrame, golden, index, min_chars: int, source) -> pd.DataFrame:
    """Pages checked against the documents, and placed by text where the log gives none that is physical.

    * a logged page beyond its document's last page is an error naming the item;
    * items with text and no document (a text-only log, e.g. ragas rows) get document and pages from where the
      text lies (:func:`rag_metrics.judging.locate.place_text_only`); without the documents that is an error;
    * items whose only page is a printed label (``page_label``) get the pages their text lies on in their document.

    Adds ``pages_from`` (``logged``, ``located``, or ``""`` when the item has no page) and ``placed_by`` (how the
    item was placed: ``logged`` or one of :data:`rag_metrics.judging.locate.PLACED_BY`).
    """
    run = run.copy()
    text_only = run["doc_id"].isna() & run["text"].map(lambda t: isinstance(t, str))
    if "page_label" not in run.columns:
        run["page_label"] = None
    if index is not None:
        check_pages_in_documents(run, index.n_pages, source=source)
    elif text_only.any():
        row = run[text_only].iloc[0]
        raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: text without a document; "
                         "text-only items are placed by finding their text on the pages: give the documents "
                         "(--pages).", path=source, line=int(row["line"]), field="doc_id")
    run["pages_from"] = ["logged" if len(p) else "" for p in run["pages"]]
    run["placed_by"] = "logged"
    if index is None:
        return run
    if text_only.any():
        gold = golden.pages_by_question()
        placed = place_text_only(run[text_only], index, min_chars=min_chars, gold=gold)
        run.loc[text_only, "doc_id"] = placed["doc_id"]
        run.loc[text_only, "pages"] = placed["pages"]
        run.loc[text_only, "placed_by"] = placed["placed_by"]
        run.loc[text_only, "pages_from"] = ["located" if len(p) else "" for p in placed["pages"]]
    labelled = run["page_label"].notna() & run["pages"].map(len).eq(0) & run["text"].map(
        lambda t: isinstance(t, str)).astype(bool) & run["doc_id"].map(lambda d: d in index.docs).astype(bool)
    if labelled.any():
        where = locate_items(run.loc[labelled, "text"].tolist(), index, min_chars=min_chars,
                             docs=run.loc[labelled, "doc_id"].tolist())
        where.index = run.index[labelled]
        run.loc[labelled, "pages"] = where["pages"]
        run.loc[labelled, "placed_by"] = where["placed_by"]
        run.loc[labelled, "pages_from"] = ["located" if len(p) else "" for p in where["pages"]]
    return run


def applicable_judges(log, corpus=None, run=None) -> list[str]:
    """The judges that apply to a log: ``document`` always; ``page`` when it logs pages; ``marker`` when its text
    holds ``[p.N]`` markers; ``overlap`` when it logs text and the corpus is given. ``run``: the rows to look at
    (default the whole log)."""
    run = log.run if run is None else run
    names = ["document"]
    if run["pages"].map(len).gt(0).any():
        names.append("page")
    texts = run["text"].dropna()
    if len(texts) and texts.map(lambda t: PAGE_MARKER.search(t) is not None).any():
        names.append("marker")
    if len(texts) and corpus is not None:
        names.append("overlap")
    return names


def check_judge(primary, log, corpus=None) -> None:
    """Refuse a headline judge that does not apply to the log (:func:`applicable_judges`), saying why."""
    if primary is None:
        return
    names = applicable_judges(log, corpus)
    if primary in names:
        return
    why = {"page": "the log has no page numbers (log page/pages, or map them with --field page@1=PATH)",
           "overlap": ("the documents are not given (--pages)" if corpus is None else "the log has no text"),
           "marker": "the logged text holds no [p.N] page markers"}.get(primary, "it is not a judge")
    raise InputError(f"judge {primary!r} does not apply to this log: {why} (applicable: {', '.join(names)}).",
                     path=log.source, field="judge")


def prepare_log(golden, log, corpus=None):
    """The log as evaluation needs it: matched to the golden set and the documents (:func:`rag_metrics.io.logs.match_log`,
    done when the log was read with them, else here). Its text-only items are placed on the pages by
    :func:`evaluate_log` (:func:`rag_metrics.judging.locate.place_text_only`); a text-only log without the corpus is
    an error: the texts cannot be placed."""
    known = list(corpus.documents.index) if corpus is not None else None
    against = log.matched_against
    if against is None or against[0] != golden.fingerprint() or (known is not None and list(against[2]) != known) \
            or (known is None and against[1] == "corpus"):
        log = match_log(log, golden, corpus)
    text_only = log.text_only
    if len(text_only) and corpus is None:
        row = text_only.iloc[0]
        raise InputError(f"text-only log: give --pages so each text is located on the pages ({len(text_only)} "
                         "retrieved items have text and no document).", path=log.source, line=int(row["line"]),
                         field="doc_id")
    return log


def _judge_raw(with_doc, ruled, gold_pages, raw, index):
    """The overlap judge with boilerplate kept (``raw``) on the rows ``with_doc``, given the same rows judged with
    boilerplate left out (``ruled``, or None). When the ruled judge kept its furniture-kept answers
    (``satisfies_kept``: :func:`~rag_metrics.judging.judges.judge_run` with ``kept=True``) they are the answer.
    Otherwise: keeping boilerplate only adds fragments, so every gold page the ruled judge credits the raw one
    credits too, and only the rows short of some gold page of their document are judged again
    (:func:`~rag_metrics.judging.judges.judge_run` on all of them gives the same)."""
    if ruled is None or len(ruled) != len(with_doc):
        return judge_run(with_doc, None, gold_pages, raw, index)
    if "satisfies_kept" in ruled.columns:
        out = judged_frame(with_doc)
        out["satisfies"] = ruled["satisfies_kept"].to_numpy(dtype=object)
        out["hit"] = [bool(x) for x in out["satisfies"]]
        return out
    per_doc = gold_pages.groupby(["question_id", "doc_id"])["page"].nunique().to_dict()
    short = np.fromiter((len(s) < per_doc.get((q, d), 0) for q, d, s in
                         zip(with_doc["question_id"], with_doc["doc_id"], ruled["satisfies"])), dtype=bool,
                        count=len(with_doc))
    satisfies = ruled["satisfies"].to_numpy(dtype=object).copy()
    if short.any():
        again = judge_run(with_doc[short], None, gold_pages, raw, index)
        satisfies[short] = again["satisfies"].to_numpy(dtype=object)
    out = judged_frame(with_doc)
    out["satisfies"] = list(satisfies)
    out["hit"] = [bool(x) for x in satisfies]
    return out


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
    page_index: object = None  # the PageIndex the judges used (page texts, normalized and hashed once)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- rulers (rag_metrics.experiment.rulers) and page checks (rag_metrics.judging.audit) -------------------------
    def raw_overlap(self):
        """The overlap judge with boilerplate kept -- ``(description, Evaluation, judged rows)`` -- to show what page
        furniture does; None when the overlap judge does not apply or keeps boilerplate already."""
        judge = self.judges.get("overlap")
        if judge is None or judge.boilerplate is None:
            return None
        if "raw_overlap" not in self._cache:
            raw = replace(judge, boilerplate=None)
            with_doc = self.run[self.run["doc_id"].notna()]
            judged = _judge_raw(with_doc, self.judged.get("overlap"), self.golden.gold_pages, raw, self.page_index)
            measures = [f"hit@{k}" for k in self.ks] + ["mrr", f"recall@{max(self.ks)}"]
            self._cache["raw_overlap"] = (describe_judge(raw), evaluate_judged(self.golden, judged, measures, raw.params()),
                                          judged)
        return self._cache["raw_overlap"]

    def ruler_table(self) -> pd.DataFrame:
        """Every headline measure under every ruler (:func:`rag_metrics.experiment.rulers.ruler_table`)."""
        return ruler_table(self)

    def ruler_changes(self, previous: "ExperimentResult") -> pd.DataFrame:
        """This run minus ``previous`` under every ruler (:func:`rag_metrics.experiment.rulers.ruler_changes`)."""
        return ruler_changes(previous, self)

    def ruler_disagreements(self, a: str = "overlap", b: str = "page", k: int | None = None) -> pd.DataFrame:
        """Items ruler ``a`` credits and ``b`` does not, and the reverse, with the shared text
        (:func:`rag_metrics.experiment.rulers.ruler_disagreements`)."""
        return ruler_disagreements(self, a, b, k)

    def unfindable_gold(self) -> pd.DataFrame:
        """Gold pages without text, unfindable by text judges (:func:`rag_metrics.experiment.rulers.unfindable_gold`)."""
        return unfindable_gold(self)

    def boilerplate(self) -> pd.DataFrame:
        """What the overlap judge left out as boilerplate, per document (its repeated text, digits as ``#``, and on
        how many pages); empty when the overlap judge does not apply."""
        judge = self.judges.get("overlap")
        if judge is None or self.page_index is None:
            return boilerplate_lines(None, 24, None)
        return boilerplate_lines(self.page_index, judge.min_chars, judge.boilerplate)

    def page_audit(self):
        """The page-metadata audit of the logged pages (:func:`rag_metrics.judging.audit.audit_pages`); None without
        the documents."""
        if self.page_index is None:
            return None
        if "audit" not in self._cache:
            logged = self.run[self.run["pages_from"] == "logged"] if "pages_from" in self.run else self.run
            read = (self.settings.get("read") or {})
            self._cache["audit"] = audit_pages(logged, self.page_index, min_chars=self.judges.get(
                "overlap", OverlapJudge()).min_chars, page_base=read.get("page_base"), name=self.name)
        return self._cache["audit"]

    def placements(self) -> pd.DataFrame:
        """How the items got their document and pages: one row per (placed_by, pages_from) with its item count."""
        cols = [c for c in ("placed_by", "pages_from") if c in self.run.columns]
        if not cols:
            return pd.DataFrame(columns=["items"])
        return self.run.groupby(cols, dropna=False).size().rename("items").to_frame()

    def notices(self) -> list[str]:
        """Sentences a report must show about its rulers: a page-base offset (with its fix), items placed by their
        text, printed labels ignored, gold pages no text judge can find, what boilerplate was left out."""
        out = []
        audit = self.page_audit()
        if audit is not None and audit.warning:
            out.append(audit.warning)
        if "placed_by" in self.run.columns:
            placed = self.run[self.run["placed_by"] != "logged"]["placed_by"].value_counts()
            if len(placed):
                out.append(f"{self.name}: {int(placed.sum())} item(s) had no document or no physical page and were "
                           "placed by finding their text on the pages: "
                           + ", ".join(f"{v} {k}" for k, v in placed.items()) + ".")
        if "page_label" in self.run.columns and self.run["page_label"].notna().any():
            out.append(f"{self.name}: page_label is the label printed on a page (i, ii, 1...), not its position in the "
                       "file; it was not read as a page (pages were located from the text).")
        unfindable = self.unfindable_gold()
        if len(unfindable):
            qs = ", ".join(dict.fromkeys(unfindable["question_id"].astype(str)))
            out.append(f"{len(unfindable)} gold page(s) have no text (scanned pages?): text judges cannot find them, "
                       f"so questions {qs} are misses under those judges whatever the retriever does.")
        furniture = self.boilerplate()
        if len(furniture):
            out.append(f"The overlap judge left out text repeated on most pages of {furniture['doc_id'].nunique()} "
                       f"document(s) ({len(furniture)} repeated line(s), e.g. {furniture['text'].iloc[0]!r}): "
                       "shared page furniture is no evidence of a page.")
        return out

    def answers(self) -> pd.Series:
        """The answers logged with the questions, indexed by golden question ID (empty when none)."""
        out = {}
        for qid, text, answer in zip(self.log.questions["question_id"], self.log.questions["question"],
                                     self.log.questions["answer"]):
            key = log_key(qid, text)
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

    def headline(self, n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
        """n, hit@k, MRR (and Recall@k) with 95% intervals (:func:`~.intervals.mean_table`), under the primary judge."""
        return headline_table({self.name: self.evaluation.per_question}, self.headline_measures,
                              n_resamples=n_resamples)

    def judges_table(self) -> pd.DataFrame:
        """The same figures under every judge that applies, side by side ("suspect the ruler first")."""
        rows = {}
        for name, ev in self.pages.items():
            s = ev.summary_dict()
            rows[name] = {"judge": describe_judge(self.judges[name]), **{m: s[m]["mean"] for m in self.headline_measures},
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

    @property
    def depth(self) -> int:
        """The most items the log holds for one question (0 when it holds none): what any k can reach."""
        if "depth" not in self._cache:
            counts = self.log.run.groupby("question_id", sort=False).size() if len(self.log.run) else []
            self._cache["depth"] = int(max(counts, default=0))
        return self._cache["depth"]

    def depth_warning(self) -> str | None:
        """A sentence when a cutoff k exceeds the depth the log holds (None otherwise): hit@k at such a k counts
        only the items logged, so it cannot differ from hit@depth -- the log cannot say what ranks beyond it held."""
        over = [k for k in self.ks if k > self.depth]
        if not over:
            return None
        asked = (self.settings.get("run_settings") or {}).get("k")
        run_k = f" (the run asked for {asked})" if asked is not None else ""
        return (f"k = {', '.join(map(str, over))} exceeds the depth run {self.name} logged: at most {self.depth} "
                f"item(s) per question{run_k}. Figures at k = {', '.join(map(str, over))} count only those "
                f"{self.depth}, so they equal the figures at k = {self.depth}; log deeper to measure them.")

    def judged_at_k(self, k: int | None = None) -> dict:
        """Judged@k (ir_measures' measure, not trec_eval's) on the answerable questions only, at document level:
        the share of the top k whose document is labelled for the question. ``no_answer`` questions have no label
        at all and would count as 0, so they are left out (``excluded``).

        When the golden set labels only relevant documents (``positive_only``: no label below 1), "labelled" means
        "relevant": judged@k then measures what precision@k measures, and a low value says the top k holds
        documents nobody labelled -- irrelevant ones or relevant ones missing from the golden set, which judged@k
        cannot tell apart. ``precision`` is precision@k on the same questions, for comparison. ``warn``: the mean is
        below ``warning_below`` on a golden set that labels non-relevant documents too -- the only case where a low
        Judged@k says labels are missing (on a relevant-only set it is a precision, low whenever k exceeds the gold).
        """
        k = max(self.ks) if k is None else check_int(k, "k")
        answerable = set(self.golden.answerable)
        gold = self.golden.gold[self.golden.gold["question_id"].isin(answerable)]
        run = self.run[self.run["question_id"].isin(answerable) & self.run["doc_id"].notna()]
        ev = evaluate(gold, run[["question_id", "rank", "doc_id"]], [f"judged@{k}", f"precision@{k}"])
        summary = ev.summary_dict()
        labels = gold.loc[gold["doc_id"].notna(), "relevance"]
        no_answer = int((self.golden.labelled["type"] == "no_answer").sum())
        mean, positive_only = summary[f"judged@{k}"]["mean"], bool((labels >= 1).all())
        return {"k": k, "mean": mean, "evaluated": summary[f"judged@{k}"]["evaluated"],
                "excluded": no_answer, "positive_only": positive_only,
                "precision": summary[f"precision@{k}"]["mean"], "warning_below": JUDGED_WARNING,
                "warn": bool(mean is not None and mean < JUDGED_WARNING and not positive_only)}

    def generation(self, answers: pd.DataFrame | None = None, *, generator: str | None = None) -> GenerationView:
        """Retrieval vs generation for this run (:func:`rag_metrics.experiment.attribution.attribute`).

        The answers come from ``answers`` (a table with question_id and generated_answer, and optionally generator
        and retrieved_ids -- e.g. :func:`rag_metrics.io.corpus.load_answers`; ``generator`` picks one) or else from
        the log itself. Answerable questions without an expected answer in the golden set are left out (listed); ``no_answer`` questions are attributed apart (refusals). When the
        answers file says which documents each answer was generated from (``retrieved_ids``), they are checked
        against this run's top items: answers generated from another retrieval are counted and named (the statuses
        would mix two systems), and when every answer's context is this run's top n, the statuses use k = n (what
        the generator read); otherwise k is the largest cutoff.
        """
        logged = self.answers()
        notes: list = []
        if answers is not None:
            table = answers
            if generator is not None and "generator" in table.columns:
                table = table[table["generator"] == generator]
            source = "answers file"
        elif len(logged):
            labelled = list(self.golden.labelled.index)
            table = pd.DataFrame({"question_id": labelled, "generated_answer": [logged.get(q, "") for q in labelled]})
            source = "log"
        else:
            return GenerationView(None, None, [], None, {}, [])
        joined = join_answers(self.golden, table[[c for c in ("question_id", "generated_answer") if c in table]])
        expected = joined["expected_answer"]
        has_expected = expected.notna() & (expected.astype(str).str.strip() != "")
        answerable = joined["question_id"].isin(set(self.golden.answerable))
        without = [str(q) for q in joined.loc[~has_expected & answerable, "question_id"]]
        joined = joined[has_expected | ~answerable]  # no_answer questions are attributed apart (refusals)
        if not has_expected.any():
            return GenerationView(source, None, without, None, {}, notes)
        context: dict = {}
        k = max(self.ks)
        if source == "answers file":
            if "retrieved_ids" in table.columns:
                ids = dict(zip(table["question_id"], table["retrieved_ids"]))
                ranked = self.run.sort_values(["question_id", "rank"], kind="stable")
                logged_ids = {q: (list(g["logged_doc_id"]), list(g["doc_id"])) for q, g in ranked.groupby("question_id")}
                differ, depths = [], set()
                checked_ids = [q for q in joined["question_id"] if q in set(self.golden.answerable)]
                for q in checked_ids:
                    used = ids.get(q)
                    if not isinstance(used, list):
                        continue
                    used = [str(u) for u in used]
                    depths.add(len(used))
                    raw, resolved = logged_ids.get(q, ([], []))
                    if used not in (raw[:len(used)], resolved[:len(used)]):
                        differ.append(str(q))
                checked = sum(isinstance(ids.get(q), list) for q in checked_ids)
                context = {"checked": checked, "differ": differ, "depth": next(iter(depths)) if len(depths) == 1 else None}
                if checked and not differ and context["depth"]:
                    k = context["depth"]
                    notes.append(f"every answer was generated from this run's top {k}: statuses at k = {k}")
            else:
                notes.append("the answers file does not say which documents each answer was generated from "
                             "(retrieved_ids): the statuses assume this run's retrieval")
        run_rows = self.run[self.run["question_id"].isin(set(joined["question_id"])) & self.run["doc_id"].notna()]
        attribution = attribute(joined, k=k, run=run_rows[["question_id", "rank", "doc_id", "score"]])
        return GenerationView(source, attribution, without, k, context, notes)

    def _rows(self, judge: str) -> dict:
        """Row positions of each question in ``judged[judge]``, grouped once (drill-downs reuse them)."""
        key = ("rows", judge)
        if key not in self._cache:
            self._cache[key] = self.judged[judge].groupby("question_id", sort=False).indices
        return self._cache[key]

    def _gold_pages(self, question_id) -> list:
        if "gold" not in self._cache:
            self._cache["gold"] = self.golden.pages_by_question()
        return self._cache["gold"].get(question_id, [])

    def explain_data(self, question_id, k: int | None = None) -> dict:
        """One question's drill-down as plain data (see :meth:`explain`): the question, its gold pages and the top-k
        items, each with every judge's verdict and its text split into segments, those shared with a gold page
        (± window) marked. Reuses the evaluation's page index and the judged rows grouped once, so a drill-down
        costs the question's items, not the whole run."""
        k = max(self.ks) if k is None else k
        if question_id not in self.golden.questions.index:
            raise InputError(f"question {question_id!r} is not in the golden set.", question=question_id)
        q = self.golden.questions.loc[question_id]
        gold_pages = self._gold_pages(question_id)
        judged = self.judged[self.primary]
        positions = self._rows(self.primary).get(question_id, np.zeros(0, dtype=int))
        rows = judged.iloc[positions]
        rows = rows[rows["rank"] <= k].sort_values("rank", kind="stable")
        verdicts_by_rank = {}
        for name, table in self.judged.items():
            mine = table.iloc[self._rows(name).get(question_id, np.zeros(0, dtype=int))]
            for rank, satisfies in zip(mine["rank"], mine["satisfies"]):
                verdicts_by_rank.setdefault(int(rank), {})[name] = bool(satisfies)
        index = self.page_index if self.page_index is not None else (
            PageIndex(self.corpus) if self.corpus is not None else None)
        judge = self.judges[self.primary]
        window = getattr(judge, "window", 1)
        f = getattr(judge, "min_chars", 24)
        rule = self.judges["overlap"].boilerplate if "overlap" in self.judges else None
        items = []
        for row in rows.itertuples(index=False):
            verdicts = verdicts_by_rank.get(int(row.rank), {})
            text = row.text if isinstance(row.text, str) else None
            segments = [(text or "", False)]
            longest = 0
            if text is not None and index is not None:
                norm = normalize(text)
                near = [index.row[d, p2] for d, p in gold_pages for p2 in range(p - window, p + window + 1)
                        if (d, p2) in index.row]
                # boilerplate (running headers, footers) is no evidence: it is not highlighted
                spans = [(a, b) for a, b, furniture in index.shared_spans(norm, near, f, rule) if not furniture]
                short = [(a, b) for a, b, furniture in index.shared_spans(norm, near, max(8, f // 2), rule)
                         if not furniture] if not spans else []
                longest = max((b - a for a, b in spans or short), default=0)
                # the match that decides (at or above the threshold) is marked; shorter shared text is context only
                segments = _segments(norm, spans, "decides") if spans else _segments(norm, short, "context")
            items.append({"rank": int(row.rank), "doc_id": row.doc_id, "logged_doc_id": row.logged_doc_id,
                          "pages": list(row.pages), "score": None if row.score != row.score else float(row.score),
                          "verdicts": verdicts, "hit": bool(verdicts.get(self.primary)), "segments": segments,
                          "longest": longest, "threshold": f})
        return {"question_id": question_id, "question": q["question"], "type": q["type"],
                "answer": q["answer"], "gold": gold_pages, "k": k, "primary": self.primary,
                "judge": describe_judge(judge), "items": items, "run": self.name,
                "hit": any(i["hit"] for i in items), "normalized": index is not None,
                "unfindable": [] if index is None else [(d, p) for d, p in gold_pages if (d, p) in set(index.empty)]}

    def explain(self, question_id, k: int | None = None):
        """One question's drill-down, rendered inline in JupyterLab (an object with ``_repr_html_``)."""
        return _Html("explain.html.j2", {"q": self.explain_data(question_id, k)})

    def _repr_html_(self) -> str:  # pragma: no cover - notebooks
        return render("experiment_summary.html.j2", name=self.name, n_questions=len(self.golden.labelled),
                      headline=html_table(self.headline(n_resamples=2000), float_format=lambda v: f"{v:.3f}"),
                      judges=html_table(self.judges_table(), float_format=lambda v: f"{v:.3f}"),
                      failures=html_table(self.failure_counts()), settings=self.settings,
                      unknown=self.unknown_questions, missing=self.missing_questions, failed=self.failed_questions)


@dataclass(frozen=True)
class GenerationView:
    """Retrieval vs generation of one run (:meth:`ExperimentResult.generation`).

    ``source``: where the answers came from (``"answers file"``, ``"log"``, or None: no answers anywhere);
    ``attribution``: the per-question statuses (None without answers or expected answers); ``without_expected``:
    labelled questions the golden set gives no expected answer for (left out); ``k``: the cutoff of the statuses;
    ``context``: the check of the answers' retrieved IDs against the run (``checked``, ``differ`` -- question IDs
    whose answer was generated from other documents than this run's top items -- and ``depth``); ``notes``.
    """

    source: str | None
    attribution: object
    without_expected: list
    k: int | None
    context: dict
    notes: list

    def status_table(self) -> pd.DataFrame:
        """Questions per status, each with what it measures under the rule (empty without attribution)."""
        if self.attribution is None:
            return pd.DataFrame(columns=["what it measures", "questions"])
        return status_table(self.attribution)

    def summary(self) -> str:
        """The section's sentence: headline figures and status counts, each status named for what it measures
        (:func:`~rag_metrics.experiment.attribution.status_summary`); empty without attribution."""
        return "" if self.attribution is None else status_summary(self.attribution)


def latency_table(results) -> pd.DataFrame:
    """Median and 95th percentile of the logged latency (``latency_ms``) per run; runs without latency are left
    out (an empty table when none has any)."""
    rows = {r.name: r.log.latency() for r in results if r.log.latency()}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["n", "median_ms", "p95_ms"])
    table.index.name = "run"
    return table


class _Html:
    """Rendered on display in JupyterLab; plain text elsewhere."""

    def __init__(self, template, context):
        self.template, self.context = template, context

    def __repr__(self) -> str:
        q = self.context.get("q", {})
        return f"<drill-down of question {q.get('question_id')!r}: {'hit' if q.get('hit') else 'miss'} in the top {q.get('k')}>"

    def _repr_html_(self) -> str:
        return render(self.template, **self.context)


def _segments(text: str, spans, kind: str = "decides") -> list[tuple[str, str | bool]]:
    """``text`` cut at ``spans``: ``(piece, kind)`` for a piece inside a span, ``(piece, False)`` between them."""
    out, pos = [], 0
    for a, b in spans:
        if a > pos:
            out.append((text[pos:a], False))
        out.append((text[a:b], kind))
        pos = b
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def headline_table(per_question: dict, measures, *, n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
    """One row per run: n and each measure's mean with its 95% interval (``{run: per-question table}``;
    :func:`~rag_metrics.stats.mean_interval`: Clopper--Pearson for 0/1 values, BCa bootstrap otherwise)."""
    return mean_table(per_question, measures, n_resamples=n_resamples)


def judge_and_evaluate(golden, run: pd.DataFrame, judges: dict, index, measures: list, *,
                       chunk_level: bool = False) -> tuple:
    """Judge the log rows ``run`` with every judge and evaluate them at every level: ``(judged, pages, document,
    chunk)`` as :func:`evaluate_log` keeps them.

    * ``judged``: ``{judge name: judged rows}`` (:func:`~rag_metrics.judging.judges.judge_run`) of the rows with a
      document, the overlap judge's with the furniture-kept ruler too (``kept``);
    * ``pages``: ``{judge name: Evaluation}``, page level under that judge (:func:`evaluate_judged`);
    * ``document``: the document-level :class:`Evaluation` of the rows with a document (evidence groups give
      ``sufficiency@k``, :meth:`~rag_metrics.io.golden.GoldenSet.document_gold`);
    * ``chunk``: the chunk-level :class:`Evaluation` against the gold chunk IDs when ``chunk_level``, without
      ``sufficiency@k`` (chunk IDs carry no evidence groups); else None.

    Every question of ``golden`` is evaluated; one without rows is an empty ranking. The local path calls this on
    all the rows; the Dask path on each part of the rows split by question, against the golden set restricted to
    the part's questions (:func:`_judge_and_evaluate_on_dask`).
    """
    has_doc = run["doc_id"].notna()
    with_doc = run if has_doc.all() else run[has_doc]  # judged frames share its columns (judge_run)
    judged, pages = {}, {}
    for name, judge in judges.items():
        judged[name] = judge_run(with_doc, None, golden.gold_pages, judge, index, kept=name == "overlap")
        pages[name] = evaluate_judged(golden, judged[name], measures, judge.params())
    document = evaluate(golden.document_gold(), with_doc[["question_id", "rank", "doc_id"]], measures)
    chunk = None
    if chunk_level:
        chunk = evaluate(golden.chunk_gold(), run[["question_id", "rank", "chunk_id"]],
                         [m for m in measures if not m.startswith("sufficiency")], level="chunk")
    return judged, pages, document, chunk


def _judge_and_evaluate_part(part: pd.DataFrame, golden, judges: dict, index, measures: list,
                             chunk_level: bool) -> tuple:
    """:func:`judge_and_evaluate` of one part of the log, against the golden set of the part's questions."""
    return judge_and_evaluate(golden.subset(set(part["question_id"])), part, judges, index, measures,
                              chunk_level=chunk_level)


def _judge_and_evaluate_on_dask(golden, run: pd.DataFrame, judges: dict, index, measures: list, *,
                                chunk_level: bool, scheduler: str | None) -> tuple:
    """:func:`judge_and_evaluate` on Dask: ``run`` split by question, each part judged and evaluated on a worker
    (:func:`~rag_metrics.measures.distributed.map_by_question`), the parts joined -- the judged rows in the log's
    row order, the per-question values in the golden set's order, the questions no part holds (labelled, not in the
    log) as empty rankings (:func:`~rag_metrics.measures.distributed.combine_per_question`): the same tables and
    numbers as one process computes."""
    parts = map_by_question(_judge_and_evaluate_part, run, scheduler=scheduler, golden=golden, judges=judges,
                            index=index, measures=measures, chunk_level=chunk_level)
    _, whole_pages, whole_document, whole_chunk = judge_and_evaluate(golden, run.iloc[:0], judges, index, measures,
                                                                     chunk_level=chunk_level)
    order = {q: i for i, q in enumerate(pd.unique(run["question_id"]))}
    judged = {name: pd.concat([p[0][name] for p in parts]).loc[run.index[run["doc_id"].notna()]] for name in judges}
    pages = {name: combine_per_question([p[1][name] for p in parts], whole_pages[name], order) for name in judges}
    document = combine_per_question([p[2] for p in parts], whole_document, order)
    chunk = combine_per_question([p[3] for p in parts], whole_chunk, order) if chunk_level else None
    return judged, pages, document, chunk


LOG_ENGINES = ("local", "dask")
"""Where :func:`evaluate_log` judges and evaluates: in this process, or partition by partition on Dask."""


def evaluate_log(golden, log, corpus=None, *, ks=(1, 3, 5), min_chars: int = 24, window: int = 1,
                 primary: str | None = None, engine: str = "local", scheduler: str | None = None) -> ExperimentResult:
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
    engine : ``"local"`` (this process) or ``"dask"``: judging and per-question values partitioned by question on a
        Dask cluster (``scheduler`` address; default the running client, else a local cluster), with the same
        numbers (:func:`judge_and_evaluate` on each part, :func:`rag_metrics.measures.distributed.map_by_question`).
    """
    check_choice(engine, LOG_ENGINES, "engine", func="evaluate_log")
    ks = tuple(sorted({check_int(k, "k") for k in ks}))
    if not ks:
        raise InputError("give at least one cutoff k.")
    log = prepare_log(golden, log, corpus)
    qmap, unknown, documents = log.question_map, log.unknown_questions, log.documents
    run = log.run.copy()
    run["key"] = [log_key(q, t) for q, t in zip(run["question_id"], run["question"])]
    run = run[run["key"].isin(qmap)].copy()
    run["question_id"] = run["key"].map(qmap)
    run["chunk_id"] = [c if c is not None else f"{q}#{r}" for c, q, r in zip(run["chunk_id"], run["question_id"],
                                                                          run["rank"])]
    index = PageIndex(corpus) if corpus is not None else None
    run = _place_pages(run, golden, index, min_chars, log.source)
    if run["doc_id"].isna().any() and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        row = run[run["doc_id"].isna()].iloc[0]
        raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: no doc_id, and the golden set "
                         "has no gold chunk IDs to judge it by; map a document with --field doc_id=PATH.",
                         path=log.source, line=int(row["line"]), field="doc_id")
    run = run.drop(columns=["key"]).reset_index(drop=True)

    check_judge(primary, log, corpus)
    names = applicable_judges(log, corpus, run)
    judges = {"document": DocumentJudge(), "page": PageJudge(window=window), "marker": MarkerJudge(window=window),
              "overlap": OverlapJudge(min_chars=min_chars, window=window)}
    judges = {n: judges[n] for n in names}
    if primary is None:
        primary = next(n for n in PRIMARY_ORDER if n in judges)
    elif primary not in judges:  # it applies to the log but not to the rows of golden-set questions
        raise InputError(f"judge {primary!r} does not apply to this log's questions of the golden set (applicable: "
                         f"{', '.join(judges)}).", path=log.source, field="judge")
    measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"]
    if golden.has_groups:
        measures += [f"sufficiency@{k}" for k in ks]
    chunk_level = bool(golden.gold_chunks is not None and len(golden.gold_chunks) and run["chunk_id"].notna().any())
    if engine == "dask":
        judged, pages, document, chunk = _judge_and_evaluate_on_dask(golden, run, judges, index, measures,
                                                                     chunk_level=chunk_level, scheduler=scheduler)
    else:
        judged, pages, document, chunk = judge_and_evaluate(golden, run, judges, index, measures,
                                                            chunk_level=chunk_level)
    failures = failure_breakdown_judged(golden, judged[primary], max(ks))
    failed = [qmap[log_key(q, t)] for q, t, e in
              zip(log.questions["question_id"], log.questions["question"], log.questions["error"])
              if e is not None and log_key(q, t) in qmap]
    logged_any = set(qmap.values())
    missing = [q for q in golden.labelled.index if q not in logged_any]
    settings = {"log": log.source, "golden": golden.source, "golden_fingerprint": golden.fingerprint(),
                "corpus": getattr(corpus, "source", None), "ks": list(ks), "primary": primary,
                "judge": judges[primary].params(), "judges": {n: j.params() for n, j in judges.items()},
                "log_fingerprint": log.fingerprint(), "read": log.settings.get("read"),
                "placed_by": {str(k): int(v) for k, v in run["placed_by"].value_counts().items()},
                "run_settings": {k: v for k, v in log.settings.items() if k != "read"}}
    return ExperimentResult(log.name, golden, log, corpus, run, ks, judges, primary, judged, pages, document, chunk,
                            failures, unknown, missing, failed, documents, settings, qmap, index)

