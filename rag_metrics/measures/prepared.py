"""Judgments prepared once for many runs: the options checked, the measures parsed, a coded run turned into an
:class:`~rag_metrics.measures.result.Evaluation`.

:class:`Prepared` is the core the public :func:`rag_metrics.evaluator` (:mod:`.evaluator`, which chooses
the reader of each run) and the Dask evaluation (:mod:`.distributed`, partition by partition) share.
It reads no file: runs arrive as :class:`~rag_metrics.io.rankings.Run` objects or already coded
(:class:`~rag_metrics.io.coded.CodedRun`).
"""

from __future__ import annotations

import numpy as np

from rag_metrics.core.errors import check_gain, check_min_rel, check_order
from rag_metrics.io.judgments import Qrels, check_level
from rag_metrics.io.rankings import CodedRun, Run, code_run, read_doc_map_any
from rag_metrics.measures import engine
from rag_metrics.measures.registry import DEFAULT_MEASURES, parse_measures
from rag_metrics.measures.result import Evaluation

__all__ = ["Prepared"]


class Prepared:
    """``qrels`` and the evaluation's options, checked once (the parameters of :func:`rag_metrics.evaluate`)."""

    def __init__(self, qrels: Qrels, measures=None, *, level: str = "document", doc_map=None,
                 order: str = "cut_then_dedup", min_rel=1, gain: str = "linear", func: str = "evaluate"):
        self.measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
        self.level = check_level(level, func)
        self.order = check_order(order, func=func)
        self.min_rel = check_min_rel(min_rel, func=func)
        check_gain(gain, func=func)
        self.gain = gain
        self.doc_map = read_doc_map_any(doc_map)
        if self.doc_map is not None and level != "document":
            from rag_metrics.core.errors import InputError

            raise InputError(f"{func}: a doc map collapses chunks to documents; use it with level='document'.")
        self.qrels = qrels

    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures]

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
            return engine.compute(coded.n_questions, coded.run_q, coded.run_item, coded.gold_q, coded.gold_item,
                                  coded.gold_label, self.measures, order=self.order, dedup=coded.dedup,
                                  groups=coded.groups, **options)
        q, p, label = coded.judged
        return engine.compute_from_judged(coded.n_questions, q, p, label, coded.gold_q, coded.gold_label,
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
        """A run read whole (in memory, or a file through the line-validating reader)."""
        return self.evaluation(code_run(self.qrels, run, level=self.level, doc_map=self.doc_map), **settings)
