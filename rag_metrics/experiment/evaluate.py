"""One experiment run, end to end: a retrieval log judged against a golden set, with every view a report needs.

:func:`evaluate_log` takes a golden set (:mod:`rag_metrics.io.golden`), a retrieval log
(:mod:`rag_metrics.io.logs`) and -- for judging logged text -- the corpus it was retrieved from
(:mod:`rag_metrics.io.corpus`). It

1. takes the log matched to the golden set when it was read (:func:`rag_metrics.io.log_matching.match_log`;
   matched here when it was read without them): questions by ID (or by question text when the log has no
   IDs), documents exactly or by the longest unique path suffix; text-only items are placed on the pages;
   questions in the log but not in the golden set are reported and not used; labelled questions
   missing from the log, and questions the retriever failed on, are empty rankings (counted);
2. judges every retrieved item with each judge that applies -- document always; page metadata
   when the log has pages; page markers when its text holds ``[p.N]`` markers; content overlap
   when it has text and the corpus is given -- and evaluates page-level hit@k, MRR and Recall@k
   under each (:mod:`rag_metrics.measures.page_level`); the *primary* judge (overlap, else page, else
   document) gives the headline;
3. adds the document-level measures, chunk-level ones when the golden set gives chunk IDs,
   the failure breakdown, the no_answer questions and the backlog, latency, and retrieval vs
   generation statuses when answers are present.

The :class:`~rag_metrics.experiment.result.ExperimentResult` renders as HTML in JupyterLab;
:meth:`~rag_metrics.experiment.result.ExperimentResult.explain` shows one question's drill-down (gold pages, the top-k
items with their judgments and the text they share with a gold page highlighted).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_cutoffs
from rag_metrics.io.coerce import as_corpus, as_golden, as_log
from rag_metrics.core.text import PAGE_MARKER
from rag_metrics.io.log_matching import log_key, match_log
from rag_metrics.judging.page_audit import check_pages_in_documents
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.judges import PRIMARY_ORDER, DocumentJudge, MarkerJudge, OverlapJudge, PageJudge, as_judge, judge_run
from rag_metrics.judging.locate import locate_items, place_text_only
from rag_metrics.measures.distributed import combine_per_question, map_by_question
from rag_metrics.measures.page_level import evaluate_judged
from rag_metrics.measures.registry import measures_at
from rag_metrics.experiment.failures import failure_breakdown_judged
from rag_metrics.experiment.generation import GenerationView
from rag_metrics.experiment.levels import LEVELS, evaluate_chunks, evaluate_documents
from rag_metrics.experiment.result import ExperimentResult, headline_table

__all__ = ["evaluate_log", "LEVELS", "ExperimentResult", "headline_table", "applicable_judges", "check_judge", "prepare_log",
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
    """The log as evaluation needs it: matched to the golden set and the documents (:func:`rag_metrics.io.log_matching.match_log`,
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


def latency_table(results) -> pd.DataFrame:
    """Median and 95th percentile of the logged latency (``latency_ms``) per run; runs without latency are left
    out (an empty table when none has any)."""
    rows = {r.name: r.log.latency() for r in results if r.log.latency()}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["n", "median_ms", "p95_ms"])
    table.index.name = "run"
    return table


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
    document = evaluate_documents(golden, with_doc, measures)
    chunk = evaluate_chunks(golden, run, measures) if chunk_level else None
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


def evaluate_log(golden, log, corpus=None, *, measures=None, ks=(1, 3, 5), level: str = "page", judge=None,
                 min_chars: int = 24, window: int = 1, primary: str | None = None, engine: str = "local",
                 scheduler: str | None = None) -> ExperimentResult:
    """Judge and evaluate a retrieval log: the one way in for a log (module docstring).

    Parameters
    ----------
    golden : GoldenSet or path
        A golden set, or the path of one (JSON lines or CSV; checked against the corpus when one is given).
    log : RunLog or path
        A retrieval log, or its path (``PRESET:PATH`` for another shape, e.g. ``langchain:run.jsonl``).
    corpus : Corpus or path, optional
        The documents the log was retrieved from (a folder, ``pages.jsonl`` or a document); needed to judge logged
        text by content overlap and to place text-only items.
    measures : measure names, optional
        What to evaluate at every level, besides hit@k at each k, MRR and Recall@(largest k) that every result holds:
        a name that needs a cutoff and has none (``"recall"``), or one written ``"ndcg@k"``, is taken at every k of
        ``ks`` (:func:`rag_metrics.measures.registry.measures_at`). When given, they are the headline's measures.
    ks : int or list of ints
        The cutoffs (``ks=5`` is ``(5,)``).
    level : {"page", "document", "chunk"}
        What the headline (:attr:`ExperimentResult.evaluation`, :meth:`~ExperimentResult.summary`,
        :meth:`~ExperimentResult.by`, :meth:`~ExperimentResult.misses`) counts: gold pages under ``judge`` (default),
        gold documents, or gold chunk IDs (the golden set must give them). Every level is computed either way
        (:meth:`ExperimentResult.at`).
    judge : name or judge object, optional
        The page judge of the headline, failures and drill-downs: ``"overlap"``, ``"page"``, ``"marker"``,
        ``"document"``, or an object such as ``OverlapJudge(min_chars=30)`` (its parameters replace ``min_chars``
        and ``window`` for that judge). Default: the first that applies of overlap, page, marker, document.
        ``primary`` is its former name.
    min_chars, window : the overlap judge's F and page window (the page and marker judges use the window).
    engine : ``"local"`` (this process) or ``"dask"``: the same numbers from a Dask cluster (``scheduler`` address;
        default the running client, else a local cluster), partitioned by question. A native JSON lines log given
        as a path is read out of core, in ranges on the workers, into a per-question result without judged rows
        (:mod:`rag_metrics.experiment.distributed_logs`); else :func:`~rag_metrics.measures.distributed.map_by_question`.

    Every parameter is checked before anything is read or judged; a wrong kind of value is an
    :class:`~rag_metrics.InputError` saying what was expected.
    """
    checked = _checked_inputs(golden, log, corpus, measures=measures, ks=ks, level=level, judge=judge,
                              primary=primary, min_chars=min_chars, window=window, engine=engine, scheduler=scheduler)
    if isinstance(checked, ExperimentResult):  # the log file was read, judged and evaluated range by range on Dask
        return checked
    golden, log, corpus, ks, given, chosen = checked
    primary = None if chosen is None else chosen.name
    min_chars = getattr(chosen, "min_chars", min_chars)  # an overlap judge given as an object places text alike
    index = PageIndex(corpus) if corpus is not None else None
    run = _golden_rows(log, golden, index, min_chars)
    judges, primary = _judges_for(log, corpus, run, chosen, primary, min_chars, window)
    judged, pages, document, chunk = _judge_and_evaluate_rows(golden, run, judges, index, ks, given, engine=engine,
                                                              scheduler=scheduler)
    failures = failure_breakdown_judged(golden, judged[primary], max(ks))
    failed, missing = _errored_and_missing(log, golden)
    settings = _settings(log, golden, corpus, run, ks, judges, primary, level, given)
    if level == "chunk" and chunk is None:
        raise InputError("level='chunk' needs chunk IDs in the log (chunk_id) to judge against the golden set's.",
                         path=log.source, field="level")
    return ExperimentResult(log.name, golden, log, corpus, run, ks, judges, primary, judged, pages, document, chunk,
                            failures, log.unknown_questions, missing, failed, log.documents, settings,
                            log.question_map, index, level=level)


def _checked_inputs(golden, log, corpus, *, measures, ks, level: str, judge, primary, min_chars: int, window: int,
                    engine: str, scheduler: str | None = None):
    """:func:`evaluate_log`'s parameters checked, then its inputs read: ``(golden, log, corpus, ks, measures given at
    every k or None, the judge asked for or None)`` -- or, for ``engine="dask"`` and a log file that splits, the
    whole result, evaluated range by range on the workers (:mod:`rag_metrics.experiment.distributed_logs`)."""
    func = "evaluate_log"
    check_choice(engine, LOG_ENGINES, "engine", func=func)
    check_choice(level, LEVELS, "level", func=func)
    ks = check_cutoffs(ks, func=func)
    given = None if measures is None else [str(m) for m in measures_at(measures, ks)]
    chosen = _chosen_judge(judge, primary, min_chars, window)
    corpus = as_corpus(corpus, func=func)
    golden = as_golden(golden, corpus, func=func)
    if engine == "dask":  # a log file is read, judged and evaluated range by range on the workers, out of core
        from rag_metrics.experiment import distributed_logs as split
        if split.splits_log(log):
            return split.evaluate_log_split(golden, log, corpus, ks=ks, level=level, chosen=chosen,
                                            min_chars=min_chars, window=window, given=given, scheduler=scheduler,
                                            steps=_STEPS)
    log = prepare_log(golden, as_log(log, func=func), corpus)
    if level == "chunk" and (golden.gold_chunks is None or not len(golden.gold_chunks)):
        raise InputError("level='chunk' counts gold chunk IDs, and this golden set gives none (gold_chunks); use "
                         "level='page' or 'document'.", path=golden.source, field="level")
    return golden, log, corpus, ks, given, chosen


def _judge_and_evaluate_rows(golden, run: pd.DataFrame, judges: dict, index, ks, given, *, engine: str,
                             scheduler: str | None) -> tuple:
    """:func:`judge_and_evaluate` here or on Dask, for the measures every result holds (hit@k at each k, MRR,
    Recall@(largest k), Sufficiency@k with evidence groups) and those ``given``."""
    measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"]
    if golden.has_groups:
        measures += [f"sufficiency@{k}" for k in ks]
    measures += [m for m in given or () if m not in measures]
    chunk_level = bool(golden.gold_chunks is not None and len(golden.gold_chunks) and run["chunk_id"].notna().any())
    if engine == "dask":
        return _judge_and_evaluate_on_dask(golden, run, judges, index, measures, chunk_level=chunk_level,
                                           scheduler=scheduler)
    return judge_and_evaluate(golden, run, judges, index, measures, chunk_level=chunk_level)


def _errored_and_missing(log, golden) -> tuple[list, list]:
    """The golden questions whose logged retrieval errored, and the labelled golden questions never logged."""
    qmap = log.question_map
    failed = [qmap[log_key(q, t)] for q, t, e in
              zip(log.questions["question_id"], log.questions["question"], log.questions["error"])
              if e is not None and log_key(q, t) in qmap]
    logged_any = set(qmap.values())
    return failed, [q for q in golden.labelled.index if q not in logged_any]


def _golden_rows(log, golden, index, min_chars: int) -> pd.DataFrame:
    """The log's rows of golden-set questions, under the golden set's question IDs, each with a chunk ID (logged, else
    ``question#rank``) and its pages placed (:func:`_place_pages`); a row left without a document is refused unless
    the golden set gives gold chunk IDs to judge it by."""
    qmap = log.question_map
    run = log.run.copy()
    run["key"] = [log_key(q, t) for q, t in zip(run["question_id"], run["question"])]
    run = run[run["key"].isin(qmap)].copy()
    run["question_id"] = run["key"].map(qmap)
    run["chunk_id"] = [c if c is not None else f"{q}#{r}" for c, q, r in zip(run["chunk_id"], run["question_id"],
                                                                          run["rank"])]
    run = _place_pages(run, golden, index, min_chars, log.source)
    if run["doc_id"].isna().any() and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        row = run[run["doc_id"].isna()].iloc[0]
        raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: no doc_id, and the golden set "
                         "has no gold chunk IDs to judge it by; map a document with --field doc_id=PATH.",
                         path=log.source, line=int(row["line"]), field="doc_id")
    return run.drop(columns=["key"]).reset_index(drop=True)


def _judges_for(log, corpus, run: pd.DataFrame, chosen, primary: str | None, min_chars: int, window: int):
    """``(judges, primary)``: every judge that applies to the log's rows, by name (``chosen`` in its place), and the
    headline judge -- the one asked for, else the first of :data:`PRIMARY_ORDER` that applies."""
    check_judge(primary, log, corpus)
    names = applicable_judges(log, corpus, run)
    judges = {"document": DocumentJudge(), "page": PageJudge(window=window), "marker": MarkerJudge(window=window),
              "overlap": OverlapJudge(min_chars=min_chars, window=window)}
    if chosen is not None:
        judges[chosen.name] = chosen
    judges = {n: judges[n] for n in names}
    if primary is None:
        primary = next(n for n in PRIMARY_ORDER if n in judges)
    elif primary not in judges:  # it applies to the log but not to the rows of golden-set questions
        raise InputError(f"judge {primary!r} does not apply to this log's questions of the golden set (applicable: "
                         f"{', '.join(judges)}).", path=log.source, field="judge")
    return judges, primary


def _settings(log, golden, corpus, run: pd.DataFrame, ks, judges: dict, primary: str, level: str, given) -> dict:
    """What an evaluated log records of how it was made: its inputs' sources and fingerprints, judges, ks, level."""
    return {"log": log.source, "golden": golden.source, "golden_fingerprint": golden.fingerprint(),
            "corpus": getattr(corpus, "source", None), "ks": list(ks), "primary": primary,
            "judge": judges[primary].params(), "judges": {n: j.params() for n, j in judges.items()},
            "log_fingerprint": log.fingerprint(), "read": log.settings.get("read"),
            "placed_by": {str(k): int(v) for k, v in run["placed_by"].value_counts().items()},
            "run_settings": {k: v for k, v in log.settings.items() if k != "read"}, "level": level,
            "measures": given}


def _chosen_judge(judge, primary, min_chars: int, window: int):
    """The headline judge asked for (``judge``, or its former name ``primary``) as a judge object, None for the
    default; both given and different is an error."""
    if judge is not None and primary is not None and getattr(judge, "name", judge) != primary:
        raise InputError(f"judge={judge!r} and primary={primary!r} name two judges; give judge= alone.",
                         field="judge")
    judge = judge if judge is not None else primary
    if judge is None:
        return None
    return as_judge(judge, func="evaluate_log", min_chars=min_chars, window=window)


_STEPS = {"prepare": prepare_log, "rows": _golden_rows, "judges": applicable_judges, "judge": judge_and_evaluate}
"""The steps of :func:`evaluate_log` a log evaluated range by range runs on each range
(:func:`rag_metrics.experiment.distributed_logs.evaluate_log_split`), handed over so that no import runs back."""
