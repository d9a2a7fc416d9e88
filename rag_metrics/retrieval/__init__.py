"""Retrieval for experiments: pages -> chunks -> ranked runs.

Takes a corpus; hands on chunk tables (:mod:`.chunking`), ranked result tables from the built-in
retrievers (:mod:`.retrievers`) and vector normalization and threshold audits (:mod:`.vectors`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
