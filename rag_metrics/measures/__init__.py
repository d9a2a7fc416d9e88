"""Measures: judged runs -> per-question values and summaries.

Takes rankings and gold (plain Python, DataFrames, TREC files, Dask frames); hands on an
:class:`~rag_metrics.measures.evaluation.Evaluation`. Definitions in :mod:`.metrics`, names and
kernels in :mod:`.registry`, the array engine in :mod:`.engine`.
"""
