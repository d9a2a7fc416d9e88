"""Reading inputs: files -> validated tables.

Takes TREC qrels and runs (and their BEIR, JSON and DataFrame forms), the sample corpus and golden set
(and other files teams bring); hands on validated types -- judgments (:class:`~rag_metrics.io.judgments.Qrels`),
rankings (:class:`~rag_metrics.io.rankings.Run`), golden sets, logs -- and pandas tables, with every bad
line reported as ``FILE:LINE: what was expected``.
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
