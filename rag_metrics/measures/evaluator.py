"""One evaluation: judgments and options prepared once (:class:`Evaluator`), each run read by the reader chosen for it
and its coded arrays handed to the array kernels (:mod:`.arrays`); :func:`evaluate`, :func:`evaluate_trec` and
:func:`evaluate_dask` are one call of such an evaluator.

Every evaluation returns one :class:`~rag_metrics.measures.evaluation.Evaluation`, the one result shape of the
package: per-question values, the summary (mean over defined values, counts and IDs of the excluded), the
questions of the run that are not in the golden set, and the settings. The inputs are read by the typed inputs of
:mod:`rag_metrics.io` (:class:`~rag_metrics.io.judgments.Qrels`, :class:`~rag_metrics.io.rankings.Run`), which
accept the frames and files below and also come as arguments themselves.

As ir_measures' ``evaluator(measures, qrels)``: the judgments are parsed, validated and coded once;
each run is then read (once) and evaluated. ``compare``, the run history and a CI gate evaluate many
runs on one golden set this way::

    import rag_metrics as rm

    ev = rm.evaluator("qrels.txt", ["ndcg@10", "mrr", "recall@100"])   # Qrels, DataFrame, GoldenSet, dict or path
    baseline = ev.evaluate("run_a.txt")                                  # Run, DataFrame, dict or path
    candidate = ev.evaluate("run_b.txt")
    candidate.summary                                                    # an Evaluation, as rm.evaluate returns

Which reader serves a run (``engine``; ``settings["engine"]`` of the result says which one did):

* ``"auto"`` (default): a TREC run file ordered by score goes to the columnar readers
  (:mod:`rag_metrics.io.trec_fast`: ``fast/small`` up to 16 MB, else ``fast``), which join it with
  the judgments as they read it; anything they cannot take -- another format, ``order_by="rank"``,
  an unusual file, a doc map on a large file -- to the line-validating reader (``general``). Both give
  identical numbers; a problem is reported by the general reader with its file and line. Runs in
  memory (DataFrames, dicts, :class:`~rag_metrics.io.rankings.Run`) are evaluated as they are
  (``dataframe``).
* ``"fast"``: require the columnar readers (an error says why they cannot be used).
* ``"general"``: the line-validating reader.
* ``"dask"``: the run on a Dask cluster (``scheduler`` address, default a local cluster): a glob or a
  list of TREC files (:meth:`Run.from_files <rag_metrics.io.rankings.Run.from_files>`) or a
  ``dask.dataframe`` (:mod:`rag_metrics.measures.distributed`). A ``dask.dataframe`` run goes to Dask
  whatever the engine.

Golden set (``golden``), one row per question x gold ID:

==============  =====================================================================
question_id     question identifier (required, not null)
doc_id          gold document ID (``level="document"``) -- or ``chunk_id`` at chunk level.
                A null ID declares a question without gold (e.g. ``no_answer``): it is
                evaluated, and its undefined measures are excluded and counted.
relevance       optional graded label (default 1 for every row); finite numbers
group           optional evidence group(s) of the gold ID (``sufficiency@k``): a label, several
                separated by commas or as a list; every gold row of a question has one or none
other columns   question attributes such as ``type``; a column whose value is the same
                on every row of each question becomes a per-question column, usable
                in :meth:`Evaluation.by`.
==============  =====================================================================

Run (``run``), one row per question x retrieved item:

==============  =====================================================================
question_id     question identifier
rank            1 = best. The rank order *is* the ranking (ties are not allowed:
                two rows of one question with the same rank are an error); an integer
                in [1, 2**63 - 1], gaps allowed
chunk_id        retrieved chunk (chunk level; or with ``doc_map`` at document level)
doc_id          the chunk's document (document level, when ``doc_map`` is not given)
score, ...      carried along, not used
==============  =====================================================================

IDs are compared as written: strings as they are, integers in decimal (``101``). A float
column of IDs (pandas' type for integers mixed with nulls) is read as the integers it holds
(``101.0`` is ``101``); a non-integral float, a boolean or any other object is an error
naming the column and the row (by position, as ``df.iloc``). So ``101`` in the golden set
matches ``101`` in the run whatever pandas made of the column.

Frames with the column names of ir_measures and ranx are accepted as they are (``query_id``; a run
with ``score`` and no ``rank`` is ranked like trec_eval). The rules of reading a frame are in
:mod:`rag_metrics.io.frames`.

A question of the golden set without any row in the run is an empty ranking (its
recall is 0, as trec_eval ``-c``), not a missing question. Run rows whose question
is not in the golden set are not used; their question IDs are reported in
``Evaluation.unknown_questions``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError, check_choice, check_gain, check_min_rel, check_order, wrong_type
from rag_metrics.io.judgments import Qrels, check_level
from rag_metrics.io.coded import CodedRun
from rag_metrics.io.rankings import Run, code_run, read_doc_map_any, run_frame
from rag_metrics.measures import arrays
from rag_metrics.measures.registry import DEFAULT_MEASURES, Measure, parse_measures
from rag_metrics.measures.evaluation import Evaluation

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Evaluator", "evaluator", "evaluate", "evaluate_trec", "evaluate_dask", "ENGINES"]

ENGINES = ("auto", "fast", "general", "dask")


def _is_dask_frame(run) -> bool:
    return type(run).__module__.startswith("dask") and hasattr(run, "map_partitions")


class Evaluator:
    """Judgments and options checked once; :meth:`evaluate` one run after another (module docstring).

    Attributes: ``qrels`` (:class:`~rag_metrics.io.judgments.Qrels`), ``measures`` (parsed), ``level``,
    ``order``, ``min_rel``, ``gain``, ``doc_map`` (read once), ``engine``, ``scheduler``; ``func`` names the
    public function in error messages. The options are those of :func:`evaluate` and :func:`evaluator`.
    """

    def __init__(self, qrels: Qrels, measures=None, *, level: str = "document", doc_map=None,
                 order: str = "cut_then_dedup", min_rel=1, gain: str = "linear", engine: str = "auto",
                 scheduler: str | None = None, func: str = "evaluator"):
        self.measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
        self.level = check_level(level, func)
        self.order = check_order(order, func=func)
        self.min_rel = check_min_rel(min_rel, func=func)
        check_gain(gain, func=func)
        self.gain = gain
        self.doc_map = read_doc_map_any(doc_map)
        if self.doc_map is not None and level != "document":
            raise InputError(f"{func}: a doc map collapses chunks to documents; use it with level='document'.")
        check_choice(engine, ENGINES, "engine", func=func)
        self.qrels = qrels
        self.engine = engine
        self.scheduler = scheduler
        self.func = func

    def __repr__(self) -> str:
        return f"Evaluator({self.qrels!r}, measures={self.names}, level={self.level!r}, engine={self.engine!r})"

    def __call__(self, run, **kwargs) -> Evaluation:
        return self.evaluate(run, **kwargs)

    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures]

    def with_qrels(self, qrels: Qrels, *, engine: str | None = None) -> Evaluator:
        """The same measures and options against other judgments (a partition's questions, on Dask); ``engine``
        another reader (a Dask worker reads its bucket of a split run with ``"auto"``)."""
        return Evaluator(qrels, self.measures, level=self.level, doc_map=self.doc_map, order=self.order,
                         min_rel=self.min_rel, gain=self.gain, engine=engine or self.engine, scheduler=self.scheduler,
                         func=self.func)

    def settings(self, **extra) -> dict:
        """The settings every result records (``engine`` and the readers' options come in ``extra``)."""
        out = {"level": self.level, "order": self.order if self.level == "document" else None,
               "min_rel": self.min_rel, "gain": self.gain, "measures": self.names}
        return {**out, **extra}

    def read_settings(self, run: Run | None = None, files: bool = False) -> dict:
        """How the inputs were read: the formats of the files, and a run file's order."""
        extra = {}
        if self.qrels.source is not None and self.qrels.format in ("trec", "beir", "json"):
            extra["qrels_format"] = self.qrels.format
        if files:
            extra |= {"order_by": "score", "run_format": "trec"}
        elif run is not None and run.is_file:
            extra |= {"order_by": run.order_by, "run_format": run.format}
        return extra

    def values(self, coded: CodedRun) -> dict:
        """Per-question values of every measure (plus ``n_relevant``, ``n_retrieved``) from a coded run."""
        options = {"min_rel": self.min_rel, "gain": self.gain}
        if coded.judged is None:
            return arrays.compute(coded.n_questions, coded.run_q, coded.run_item, coded.gold_q, coded.gold_item,
                                  coded.gold_label, self.measures, order=self.order, dedup=coded.dedup,
                                  groups=coded.groups, **options)
        q, p, label = coded.judged
        return arrays.compute_from_judged(coded.n_questions, q, p, label, coded.gold_q, coded.gold_label,
                                          coded.n_retrieved, self.measures, **options)

    def evaluation(self, coded: CodedRun, **settings) -> Evaluation:
        """The :class:`Evaluation` of a coded run; ``settings`` are added to :meth:`settings`."""
        result = self.values(coded)
        n_retrieved = np.asarray(result["n_retrieved"])
        depth = int(n_retrieved.max(initial=0))
        return Evaluation(tuple(self.qrels.questions), {m: result[m] for m in self.names}, result["n_relevant"],
                          n_retrieved, tuple(coded.unknown_questions),
                          self.settings(engine=coded.reader, search_depth=depth, **settings), self.qrels.attributes)

    def evaluate_table(self, run: Run, **settings) -> Evaluation:
        """A run read whole (in memory, or a file through the line-validating reader), whatever :attr:`engine`
        says: how each partition of a Dask evaluation is evaluated on its worker."""
        return self.evaluation(code_run(self.qrels, run, level=self.level, doc_map=self.doc_map), **settings)

    def evaluate(self, run, *, run_format: str = "auto", order_by: str = "score") -> Evaluation:
        """Evaluate one run against the prepared judgments.

        Parameters
        ----------
        run : Run, DataFrame, mapping, path, glob or list of paths (Dask), or dask DataFrame
            Paths are read as :meth:`Run.from_file <rag_metrics.io.rankings.Run.from_file>` reads them.
        run_format : {"auto", "trec", "json"}
            Format of a run file (``auto``: recognized from the content).
        order_by : {"score", "rank"}
            A run file's order: score descending with ties by ID descending (trec_eval), or its rank column.

        Returns
        -------
        Evaluation
            ``settings["engine"]`` names the reader that read the run.
        """
        if _is_dask_frame(run):
            from rag_metrics.measures.distributed import evaluate_partitioned

            return evaluate_partitioned(self, run, scheduler=self.scheduler)
        if self.engine == "dask":
            if isinstance(run, Run) and run.paths:
                files = run
            elif isinstance(run, (str, os.PathLike, list, tuple)):
                files = Run.from_files(run)
            else:
                raise InputError(f"{self.func}: engine='dask' evaluates TREC run files (a path, a glob or a list) or a "
                                 f"dask DataFrame; got {type(run).__name__}.")
            if run_format not in ("auto", "trec") or order_by != "score" or self.doc_map is not None:
                raise InputError("engine='dask' reads TREC run files and evaluates their IDs as they are, ordered by "
                                 "score (no doc_map, order_by='score').")
            from rag_metrics.measures.distributed import evaluate_files

            return evaluate_files(self, files, scheduler=self.scheduler)
        run = Run.coerce(run, format=run_format, order_by=order_by, func=self.func)
        if run.paths:
            raise InputError(f"{self.func}: a run split across files is evaluated with engine='dask'.")
        coded = run.code(self.qrels, level=self.level, doc_map=self.doc_map, reader=self.engine)
        return self.evaluation(coded, **self.read_settings(run))



def evaluator(golden, measures=None, *, level: str = "document", doc_map=None, order: str = "cut_then_dedup",
              min_rel=1, gain: str = "linear", engine: str = "auto", scheduler: str | None = None,
              golden_format: str = "auto") -> Evaluator:
    """Prepare ``golden`` (judgments) and ``measures`` once, to evaluate many runs (module docstring).

    Parameters
    ----------
    golden : Qrels, DataFrame, GoldenSet, mapping or path
        The judgments: a :class:`~rag_metrics.io.judgments.Qrels`, a tidy golden-set DataFrame (as in
        :func:`rag_metrics.evaluate`), a :class:`~rag_metrics.io.golden.GoldenSet`, a dict
        ``{qid: {docid: label}}``, or a qrels file (TREC, BEIR or JSON; ``golden_format``).
    measures : names, optional
        As in :func:`rag_metrics.evaluate` (default recall@5, precision@5, hit@5, mrr, ndcg@10, map).
    level : {"document", "chunk"}
        What the judged IDs are. ``"document"`` (default): a run of chunks is collapsed to documents
        with ``order`` (using the run's ``doc_id`` or ``doc_map``); a run of documents is judged as it is.
        ``"chunk"``: the run's chunk IDs are judged as they are, each at most once per question.
    doc_map : mapping, Series or path, optional
        ``chunk_id -> doc_id`` (a ``chunk_id<TAB>doc_id`` file): the run's IDs are chunks.
    order : {"cut_then_dedup", "dedup_then_cut"}
        Collapsing order and document rank (:mod:`rag_metrics.measures.collapse`).
    min_rel, gain : as in :func:`rag_metrics.evaluate`.
    engine : {"auto", "fast", "general", "dask"}
        Which reader serves run files (module docstring); ``scheduler``: a Dask scheduler address.

    Returns
    -------
    Evaluator
        ``evaluate(run, *, run_format="auto", order_by="score") -> Evaluation``, for each run.
    """
    if _looks_like_measures(golden) and measures is not None and not _looks_like_measures(measures):
        raise InputError("evaluator takes the judgments first, then the measures: evaluator(qrels, measures) "
                         "(ir_measures writes evaluator(measures, qrels)).")
    qrels = Qrels.coerce(golden, level=level, format=golden_format, func="evaluator")
    return Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                     engine=engine, scheduler=scheduler)


def _looks_like_measures(value) -> bool:
    if isinstance(value, Measure):
        return True
    return isinstance(value, (list, tuple, set)) and bool(value) and all(
        isinstance(v, (str, Measure)) and not os.path.exists(str(v)) for v in value)


def _golden_of(golden, level: str) -> Qrels:
    """``evaluate``'s judgments: Qrels as they are, a tidy DataFrame or a GoldenSet read into Qrels; a path or
    anything else refused, saying what reads it."""
    if isinstance(golden, Qrels):
        return golden
    is_frame = type(golden).__name__ == "DataFrame" and type(golden).__module__.startswith("pandas")
    if is_frame or (hasattr(golden, "gold") and hasattr(golden, "gold_pages")):
        return Qrels.coerce(golden, level=level, func="evaluate")
    hint = ("evaluate_trec(qrels_path, run_path) reads TREC files; rag_metrics.load_golden(path) a golden set."
            if isinstance(golden, (str, os.PathLike)) else "")
    raise wrong_type(golden, "golden", "a pandas DataFrame, a GoldenSet or Qrels", func="evaluate", hint=hint)


def evaluate(
    golden: pd.DataFrame | Qrels,
    run: pd.DataFrame | Run,
    measures=None,
    *,
    level: str = "document",
    doc_map=None,
    order: str = "cut_then_dedup",
    min_rel=1,
    gain: str = "linear",
) -> Evaluation:
    """Evaluate every question of ``golden`` against ``run``.

    Parameters
    ----------
    golden : DataFrame, GoldenSet or Qrels
        Tidy long form, columns described in this module's docstring (or judgments already read, or a golden set:
        its gold documents, or its gold chunk IDs at ``level="chunk"``).
    run : DataFrame, RunLog or Run
        Tidy long form, columns described in this module's docstring (or a run already read, or a retrieval log:
        its run table, document IDs as matched). Files are read by :func:`evaluate_trec`; a log judged page by
        page, with drill-downs, is :func:`rag_metrics.evaluate_log`.
    measures : iterable of str or Measure, optional
        Names such as ``"recall@5"``, ``"ndcg@10"``, ``"mrr"`` (see
        :func:`rag_metrics.parse_measure`). Default: recall@5, precision@5, hit@5,
        mrr, ndcg@10, map.
    level : {"document", "chunk"}
        ``"document"`` (default): gold is ``golden.doc_id``; the run's chunks are
        collapsed to documents with ``order`` (see
        :func:`rag_metrics.collapse_to_documents`), using ``run.doc_id`` or ``doc_map``.
        ``"chunk"``: gold is ``golden.chunk_id`` and the run's ``chunk_id`` must not
        repeat within a question.
    doc_map : mapping or Series, optional
        ``chunk_id -> doc_id`` at document level, when the run has no ``doc_id``.
    order : {"cut_then_dedup", "dedup_then_cut"}
        Collapsing order at document level, and with it the document rank every measure uses: the
        position of the document's first chunk (cut_then_dedup), or its de-duplicated rank
        (:func:`rag_metrics.measures.collapse.document_ranking`).
    min_rel : float > 0
        Lowest label counted as relevant.
    gain : {"linear", "exponential"}
        nDCG gain.

    Returns
    -------
    Evaluation
    """
    check_level(level, "evaluate")
    qrels = _golden_of(golden, level)
    run = run if isinstance(run, Run) else Run.from_df(run_frame(run, expected="a pandas DataFrame, a RunLog or Run"))
    prepared = Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                         func="evaluate")
    return prepared.evaluate(run)


def evaluate_trec(qrels, run, measures=None, *, level: str = "document", min_rel=1, gain: str = "linear",
                  order_by: str = "score", doc_map=None, order: str = "cut_then_dedup", engine: str = "auto",
                  scheduler: str | None = None, qrels_format: str = "auto", run_format: str = "auto") -> Evaluation:
    """Evaluate a run file against a qrels file (TREC, or the other formats below), with trec_eval's ordering.

    Parameters
    ----------
    qrels, run : path (or Qrels / Run)
        ``qid iter docid rel`` and ``qid Q0 docid rank score tag`` files (format and rules in
        :mod:`rag_metrics.io.trec`). With ``engine="dask"``, ``run`` may be a glob or a list of
        files (one run split across files).
    measures : names, optional
        As in :func:`evaluate`.
    level : {"document", "chunk"}
        What the qrels judge: documents (default, as TREC qrels do; with ``doc_map`` the run's chunk IDs
        are collapsed to documents with ``order``) or chunks (the run's IDs judged as they are).
        ``settings["level"]`` reports it.
    min_rel, gain : as in :func:`evaluate`.
    order_by : {"score", "rank"}
        ``"score"`` (trec_eval): score descending, ties by document ID descending. ``"rank"``: the
        file's rank column.
    doc_map : mapping or path, optional
        ``chunk_id -> doc_id`` (a dict, or a ``chunk_id<TAB>doc_id`` file): the run's IDs are chunks,
        collapsed to documents with ``order`` and judged against document qrels.
    engine : {"auto", "fast", "general", "dask"}
        Which reader serves the run (module docstring): ``"auto"`` the columnar
        readers when the files allow it, else the line-validating reader (identical numbers; any problem
        reported with its file and line); ``"fast"`` requires the columnar readers; ``"general"`` the
        line-validating reader; ``"dask"`` a Dask cluster (``scheduler`` address, default a local one).
    qrels_format, run_format : {"auto", "trec", "beir", "json"}
        TREC text (plain or gzip), BEIR qrels TSV, or ranx/ir_measures JSON dicts
        (:mod:`rag_metrics.io.formats`); ``auto`` recognizes them from the content.

    Returns
    -------
    Evaluation
        ``settings["engine"]`` says which path computed the numbers.
    """
    func = "evaluate_trec"
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    check_level(level, func)
    check_min_rel(min_rel, func=func)
    check_gain(gain, func=func)
    check_order(order, func=func)
    check_choice(engine, ENGINES, "engine", func=func)
    qrels, run = _trec_inputs(qrels, run, engine=engine, qrels_format=qrels_format, run_format=run_format,
                              order_by=order_by)
    prepared = Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                         engine=engine, scheduler=scheduler, func=func)
    return prepared.evaluate(run, run_format=run_format, order_by=order_by)


def _trec_inputs(qrels, run, *, engine: str, qrels_format: str, run_format: str, order_by: str) -> tuple:
    """``(Qrels, run)`` of :func:`evaluate_trec`: a qrels path read, a run path checked now and read when evaluated
    (on Dask, a path or glob is handed to the cluster as it is)."""
    if engine != "dask" and isinstance(run, (str, os.PathLike)):
        run = Run.from_file(run, run_format, order_by=order_by)  # checked now, read when evaluated
    if not isinstance(qrels, Qrels):
        if not isinstance(qrels, (str, os.PathLike)):
            raise wrong_type(qrels, "qrels", "a path or Qrels", func="evaluate_trec")
        qrels = Qrels.from_file(qrels, qrels_format)
    return qrels, run


def evaluate_dask(golden: pd.DataFrame | Qrels, run, measures=None, *, shuffle="auto", **options) -> Evaluation:
    """:func:`evaluate` on a ``dask.dataframe`` run; same arguments (``options``: ``level``, ``doc_map``, ``order``,
    ``min_rel``, ``gain``), same result. ``shuffle="auto"`` shuffles the run on ``question_id`` when a question's
    rows sit in several partitions; ``shuffle=False`` makes that an error (:mod:`rag_metrics.measures.distributed`).
    """
    from rag_metrics.measures.distributed import evaluate_partitioned

    level = options.get("level", "document")
    qrels = golden if isinstance(golden, Qrels) else Qrels.from_df(golden, level=level)
    return evaluate_partitioned(Evaluator(qrels, measures, func="evaluate_dask", **options), run, shuffle=shuffle)
