"""Reports: notebooks + results -> standalone HTML and an index.

Takes notebooks and their parameters; hands on one folder per run under ``reports/<experiment>/``
and ``reports/index.html``, rendered from Jinja2 templates.
"""

from rag_metrics.report.reports_index import write_index
from rag_metrics.report.kernel import banner, claim, record
from rag_metrics.report.build import ReportError, build_report

__all__ = ["build_report", "record", "banner", "claim", "write_index", "ReportError"]

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
