"""Golden sets: pages -> a reviewed golden set.

Takes the corpus's pages; hands on a seeded page sample (:mod:`.sampler`), generated draft questions
(:mod:`.generators`, :mod:`.generate`: offline extractive or an LLM through :mod:`rag_metrics.llm`), flags for
questions a user would not ask (:mod:`.flags`), and the review file, its page and the accepted golden set
(:mod:`.review_file`, :mod:`.review`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
