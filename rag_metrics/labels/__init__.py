"""Labels: a golden set + retrieved pages -> audited labels and assessors measured against people.

Takes a golden set, evaluated runs and people's judgments; hands on the audit of the golden set's labels and the
pages it missed (:mod:`.label_audit`), offline and LLM assessors of unlabelled pages (:mod:`.assessors`,
:mod:`.llm_assessors`), their agreement with people and the figures that account for assessed labels
(:mod:`.assessor_agreement`), and the sheet people fill to check the answer-support judge (:mod:`.support_sheet`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
