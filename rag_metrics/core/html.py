"""HTML from Jinja2 templates (``rag_metrics/templates/``), autoescaped: the one way the package writes HTML.

Used by the reports index, the experiment report's drill-down and the ``_repr_html_`` of result
objects in notebooks. Values are escaped unless a template marks them safe; links are built
with :func:`href` (each path segment percent-encoded).
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

__all__ = ["render", "HtmlView", "one_line", "text_cells", "REPR_MAX", "href", "md_escape", "table", "summary", "readable", "readable_table", "page_range", "COLUMN_NAMES"]

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]#|~^$])")
# a list, quote or ordered-list marker opening the value
_BLOCK_START = re.compile(r"^(\s*)([-+](?=\s|$)|>|\d+(?=[.)](?:\s|$)))")
_DOMAIN_DOT = re.compile(r"\.(?=[A-Za-z])|:(?=//)")  # file.html, evil.com, https://: no autolink
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")  # what could open HTML; "p < 0.001" cannot
_ENTITY_START = re.compile(r"&(?=[A-Za-z#])")  # what could be read as an entity; "Q & A" cannot

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


REPR_MAX = 480
"""The longest ``repr`` of a result object: one line a notebook or a log shows whole (the HTML holds the rest)."""


def one_line(text: str, limit: int = REPR_MAX) -> str:
    """``text`` on one line, cut to ``limit`` characters with ``...`` (a ``<...>`` repr keeps its closing ``>``)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    end = ">" if text.endswith(">") else ""
    return text[:limit - 3 - len(end)] + "..." + end


def text_cells(frame, columns, limit: int = 160):
    """``frame`` with the texts of ``columns`` on one line (pandas writes a line break in a cell as a literal
    ``\\n``), cut to ``limit`` characters: a log's chunks as a notebook shows them."""
    frame = frame.copy()
    for c in columns:
        frame[c] = [one_line(t, limit) if isinstance(t, str) else t for t in frame[c]]
    return frame


class HtmlView:
    """A rendered template: HTML when JupyterLab displays it (``_repr_html_``), one line of ``text`` elsewhere (a
    drill-down, the verdict banner, the question view)."""

    def __init__(self, template: str, context: dict, text: str = ""):
        self.template, self.context, self.text = template, context, text

    def __repr__(self) -> str:
        return self.text or f"<{self.template.split('.')[0].replace('_', ' ')}: display in JupyterLab>"

    def _repr_html_(self) -> str:
        return render(self.template, **self.context)


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
    ``[x](javascript:...)`` link in a displayed sentence would become live markup in the report. The characters
    that open inline markup are backslash-escaped (no code span, emphasis, link, image or table cell); ``<`` that
    could open a tag and ``&`` that could open an entity become entities; a dot before a letter is escaped (no bare
    domain becomes a link) and so is the colon of ``://``; a list, quote or ordered-list marker at the start is escaped; line breaks become spaces
    (a value cannot start a block of its own). What cannot form markup is left as written, so the raw Markdown stays
    readable: ``0.815 (p < 0.001)``.
    The result is for running text, not for inside a code span (where neither escapes nor entities are read): never
    wrap it in backticks.
    """
    text = " ".join(str(value).splitlines())
    text = _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
    text = _TAG_START.sub("&lt;", _ENTITY_START.sub("&amp;", text))
    text = _DOMAIN_DOT.sub(lambda m: "\\" + m.group(0), text)
    m = _BLOCK_START.match(text)
    if m:  # a marker at the very start would open a block: escape it, or the digits' period / parenthesis
        lead, marker = m.groups()
        rest = text[m.end():]
        text = lead + ("\\" + marker if not marker.isdigit() else marker + "\\" + rest[0]) + \
            (rest if not marker.isdigit() else rest[1:])
    return text


def href(*parts: str) -> str:
    """A relative link: each path segment percent-encoded (``#``, ``?``, spaces and ``%`` included)."""
    return "/".join(quote(p, safe="") for p in "/".join(parts).split("/"))


COLUMN_NAMES = {"question_id": "question ID", "doc_id": "document", "ci_low": "interval low", "ci_high": "interval high",
                "p_holm": "p (Holm)", "n_relevant": "relevant", "n_retrieved": "retrieved", "median_ms": "median ms",
                "p95_ms": "95th percentile ms", "only_boilerplate": "only page furniture", "shared_text": "shared text",
                "credited_by": "credited by", "not_credited_by": "not credited by", "first_document": "first document",
                "chunk_id": "chunk", "page_label": "page label", "placed_by": "placed by", "pages_from": "pages from",
                "logged_doc_id": "logged document", "judged_share": "judged share"}
"""Column names a reader sees for the package's own columns (other names -- run names among them -- are shown as
they are)."""

_TIMESTAMP = re.compile(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?$")


def page_range(pages) -> str:
    """Pages as a reader writes them: ``(3, 4)`` -> ``3–4``, ``(10,)`` -> ``10``, ``(2, 5)`` -> ``2, 5``, none -> ``-``."""
    pages = sorted(int(p) for p in pages)
    if not pages:
        return "-"
    if pages == list(range(pages[0], pages[-1] + 1)) and len(pages) > 1:
        return f"{pages[0]}–{pages[-1]}"
    return ", ".join(map(str, pages))


def _cell(value):
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return page_range(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(map(str, value))
    if isinstance(value, str):
        m = _TIMESTAMP.match(value)
        if m:
            return f"{m.group(1)} {m.group(2)}" + (" UTC" if m.group(3) == "Z" else (m.group(3) or ""))
    return value


def readable(frame):
    """A table as a reader sees it (one formatting layer for every table of a report): human column and index names
    (:data:`COLUMN_NAMES`), booleans as ``yes`` / ``no``, page tuples as ``3–4``, ISO
    timestamps to the second. Numbers are left as numbers (the caller formats them)."""
    import pandas as pd

    out = frame.copy()
    name = lambda c: COLUMN_NAMES.get(c, c) if isinstance(c, str) else c  # noqa: E731
    for c in out.columns:
        col = out[c]
        if col.dtype == bool or col.dtype == object or isinstance(col.dtype, pd.StringDtype):
            out[c] = pd.Series([_cell(v) for v in col], index=out.index, dtype=object)
    out.columns = [name(c) for c in out.columns]
    out.index = out.index.rename([name(n) for n in out.index.names]) if out.index.nlevels > 1 else \
        out.index.rename(name(out.index.name))
    if out.index.dtype == object or isinstance(out.index.dtype, pd.StringDtype):
        out.index = pd.Index([_cell(v) for v in out.index], name=out.index.name, dtype=object)
    return out


def readable_table(frame, **to_html):
    """:func:`readable`, then :func:`table` with text left-aligned and numbers right-aligned (a style scoped to this
    table by a class made from its content, so that the page stays deterministic)."""
    import hashlib

    from markupsafe import Markup
    from pandas.api.types import is_numeric_dtype

    shown = readable(frame)
    cls = "rm-t" + hashlib.sha1(shown.to_string().encode("utf-8")).hexdigest()[:10]
    body = table(shown, classes=["rm-table", cls], **to_html)
    offset = shown.index.nlevels if to_html.get("index", True) else 0
    numeric = [offset + i + 1 for i, c in enumerate(shown.columns) if is_numeric_dtype(shown.dtypes.iloc[i])]
    scope = f"table.rm-table.{cls}"  # more specific than JupyterLab's right-aligned cells
    rules = [f"{scope} td, {scope} th {{ text-align: left; vertical-align: top; }}"]
    rules += [f"{scope} td:nth-child({n}) {{ text-align: right; }}" for n in numeric]
    return Markup(f"<style>{' '.join(rules)}</style>") + body
