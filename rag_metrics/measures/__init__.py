"""Measures: judged runs -> per-question values and summaries.

Takes rankings and gold as the typed inputs of :mod:`rag_metrics.io` (:class:`~rag_metrics.io.judgments.Qrels`,
:class:`~rag_metrics.io.rankings.Run`; DataFrames, dicts and paths are turned into them there) and never
reads a file itself; hands on an :class:`~rag_metrics.measures.result.Evaluation`. Definitions in
:mod:`.metrics`, names and kernels in :mod:`.registry`, the array engine in :mod:`.engine`, the prepared
evaluator and the choice of reader in :mod:`.evaluator`, Dask in :mod:`.distributed`.
"""
