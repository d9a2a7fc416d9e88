"""Answers: generated answers judged -> whether each is right and supported.

Takes the generated answers with the question, the expected answer and the retrieved passages (the context the
generator read); hands on, per answer, whether it matches the expected answer (lexical matching,
:mod:`.matching`; by meaning: numbers, units and paraphrase, :mod:`.correctness`) and, per claim
(:mod:`.claims`), whether a passage supports it (the offline judge, :mod:`.support`; LLM judges,
:mod:`.support_llm`). The step after :mod:`rag_metrics.judging`, which judges retrieved items.
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
