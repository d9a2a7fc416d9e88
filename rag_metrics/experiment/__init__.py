"""Experiment: retrieval logs + a golden set -> evaluated runs, a verdict, a gate and a history.

Takes logs (:mod:`rag_metrics.io.logs`), a golden set and the documents; hands on each log evaluated under its
rulers (:mod:`.evaluate`, :mod:`.rulers`), the verdict between two runs and the CI gate (:mod:`.verdict`,
:mod:`.gate`), saved and compared runs (:mod:`.history`, :mod:`.compare`), why questions fail (:mod:`.failures`,
:mod:`.attribution`, :mod:`.diagnosis`), whether answers are supported by what was retrieved (:mod:`.answer_support`)
and every table and sentence of the experiment report (:mod:`.experiment_report`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
