"""Reports: notebooks + results -> standalone HTML and an index.

Takes notebooks and their parameters; hands on one folder per run under ``reports/<experiment>/``
and ``reports/index.html``, rendered from Jinja2 templates.
"""

from .index import write_index
from .runner import ReportError, banner, build_report, record

__all__ = ["build_report", "record", "banner", "write_index", "ReportError"]
