"""rag_metrics: exact retrieval measures for RAG evaluation, and the workbench around them.

The package follows the data flow: inputs are read (:mod:`rag_metrics.io`) -> retrieved items
are judged (:mod:`rag_metrics.judging`) -> measures are computed (:mod:`rag_metrics.measures`) ->
statistics (:mod:`rag_metrics.stats`) -> experiments judged against their baseline
(:mod:`rag_metrics.experiment`) and labels audited (:mod:`rag_metrics.labels`) -> reports are written
(:mod:`rag_metrics.report`). :mod:`rag_metrics.retrieval` holds the built-in chunkers and retrievers for experiments,
:mod:`rag_metrics.golden` builds golden sets, :mod:`rag_metrics.llm` holds the LLM clients,
:mod:`rag_metrics.lab` the notebooks' lessons; :mod:`rag_metrics.core` sits below everything.

Top-level names: the per-question measures, chunk -> document collapsing, measure names,
whole-set evaluation of DataFrames (:func:`evaluate`) and TREC files (:func:`evaluate_trec`), the
typed inputs (:class:`Qrels`, :class:`Run`: judgments and rankings read once, from files, dicts or
DataFrames) and a prepared :func:`evaluator` (judgments read once, many runs evaluated).
The experiment loop is one import away, loaded when first used. :func:`evaluate_log` is the one way in for a
retrieval log -- paths or objects, any measure at any k, page / document / chunk level, a judge by name -- and its
result holds the summary with intervals, per-question values, slices, drill-downs, failures and TREC export
(docs/exploring.md); :func:`compare` sets several results side by side::

    from rag_metrics import evaluate_log, load_log, load_golden, load_corpus

and so is every subpackage, as an attribute: ``rm.stats.paired_test``, ``rm.judging.judges.OverlapJudge``.
Nothing here imports pandas until it is used, so the command line stays fast.
"""

from rag_metrics.core.errors import InputError, NotComparableError
from rag_metrics.io.judgments import Qrels
from rag_metrics.io.rankings import Run
from rag_metrics.measures.collapse import collapse_to_documents, document_ranking
from rag_metrics.measures.evaluator import Evaluator, evaluate, evaluate_trec, evaluator
from rag_metrics.measures.metrics import average_precision, hit_at_k, ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank
from rag_metrics.measures.registry import DEFAULT_MEASURES, Measure, parse_measure, parse_measures
from rag_metrics.measures.evaluation import Evaluation, summarize

__version__ = "0.1.0"

_LAZY = {
    "load_corpus": "rag_metrics.io.corpus", "load_answers": "rag_metrics.io.corpus", "Corpus": "rag_metrics.io.corpus",
    "load_golden": "rag_metrics.io.golden", "GoldenSet": "rag_metrics.io.golden",
    "load_log": "rag_metrics.io.logs", "RunLog": "rag_metrics.io.logs",
    "evaluate_log": "rag_metrics.experiment.evaluate", "ExperimentResult": "rag_metrics.experiment.evaluate",
    "compare": "rag_metrics.experiment.compare", "trec_run": "rag_metrics.measures.export",
    "trec_qrels": "rag_metrics.measures.export",
}
"""Public names that need pandas: imported on first use (PEP 562), so ``import rag_metrics`` stays light."""

SUBPACKAGES = ("core", "io", "llm", "retrieval", "judging", "answers", "measures", "stats", "golden", "experiment",
               "labels", "report", "lab", "cli")
"""The subpackages, in the order of the data flow: ``rm.stats`` and the others are imported on first use too."""


def __getattr__(name):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'rag_metrics' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(SUBPACKAGES))


__all__ = [
    "recall_at_k",
    "precision_at_k",
    "hit_at_k",
    "reciprocal_rank",
    "ndcg_at_k",
    "average_precision",
    "collapse_to_documents",
    "document_ranking",
    "evaluate",
    "evaluate_trec",
    "evaluator",
    "Evaluator",
    "Qrels",
    "Run",
    "Evaluation",
    "summarize",
    "Measure",
    "parse_measure",
    "parse_measures",
    "DEFAULT_MEASURES",
    "InputError",
    "NotComparableError",
    *_LAZY,
]
