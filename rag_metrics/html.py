"""HTML from Jinja2 templates (``rag_metrics/templates/``), autoescaped: the one way the package writes HTML.

Used by the reports index, the experiment report's drill-down and the ``_repr_html_`` of result
objects in notebooks. Values are escaped unless a template marks them safe; links are built
with :func:`href` (each path segment percent-encoded).
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

__all__ = ["render", "href", "md_escape", "table", "summary"]

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~^$])")

_ENV = None


def _env():
    global _ENV
    if _ENV is None:
        import jinja2

        _ENV = jinja2.Environment(loader=jinja2.PackageLoader("rag_metrics", "templates"), autoescape=True,
                                  undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
        _ENV.filters["fmt"] = lambda v, spec=".3f": "-" if v is None or v != v else format(v, spec)
    return _ENV


def render(template: str, **context) -> str:
    """Render ``templates/<template>`` with autoescaping."""
    return _env().get_template(template).render(**context)


def table(frame, **to_html):
    """A DataFrame as an HTML table for a template: every cell, label and name escaped by pandas
    (``escape=True`` is forced), marked safe here so that templates need no ``|safe``."""
    from markupsafe import Markup

    to_html["escape"] = True
    return Markup(frame.to_html(**to_html))


def summary(lead: str, *tables) -> str:
    """The ``_repr_html_`` of an input or result object: one sentence, then ``(caption, DataFrame)`` tables (a
    ``None`` frame is left out); everything escaped (file names, IDs and types come from users' files)."""
    return render("summary.html.j2", lead=lead,
                  tables=[(caption, table(frame, **opts)) for caption, frame, *rest in tables if frame is not None
                          for opts in [rest[0] if rest else {}]])


def md_escape(value) -> str:
    """A value from a user's file made inert inside Markdown that a notebook displays.

    nbconvert renders Markdown outputs and passes raw HTML through, so an ID like ``q<img onerror=...>`` or a
    ``[x](javascript:...)`` link in a displayed sentence would become live markup in the report. Markdown
    punctuation is backslash-escaped (no code spans, emphasis, links, headings or lists), then ``< > & " '``
    become entities; line breaks become spaces (a value cannot start a block of its own).
    The result is for running text, not for inside a code span (where neither escapes nor entities are read): never
    wrap it in backticks.
    """
    text = " ".join(str(value).splitlines())
    return html.escape(_MARKDOWN_PUNCTUATION.sub(r"\\\1", text), quote=True)


def href(*parts: str) -> str:
    """A relative link: each path segment percent-encoded (``#``, ``?``, spaces and ``%`` included)."""
    return "/".join(quote(p, safe="") for p in "/".join(parts).split("/"))
