"""Judging: a run + gold pages -> which retrieved items count.

Takes result rows with their text and the golden (document, page) labels; hands on, per row,
the set of gold pages it satisfies under a judge (document, page marker, content overlap). Generated answers are
judged in the next step, :mod:`rag_metrics.answers`.
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
