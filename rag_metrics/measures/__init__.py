"""Measures: judged runs -> per-question values and summaries.

Takes rankings and gold as the typed inputs of :mod:`rag_metrics.io` (:class:`~rag_metrics.io.judgments.Qrels`,
:class:`~rag_metrics.io.rankings.Run`; DataFrames, dicts and paths are turned into them there) and never
reads a file itself; hands on an :class:`~rag_metrics.measures.evaluation.Evaluation`. Definitions in
:mod:`.metrics`, names and kernels in :mod:`.registry`, the array kernels in :mod:`.arrays`, one evaluation --
the prepared evaluator, the choice of reader, :func:`~rag_metrics.evaluate` and :func:`~rag_metrics.evaluate_trec`
-- in :mod:`.evaluator`, the Dask mechanics in :mod:`.distributed`.
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
