"""HTML from Jinja2 templates (``rag_metrics/templates/``), autoescaped: the one way the package writes HTML.

Used by the reports index, the experiment report's drill-down and the ``_repr_html_`` of result
objects in notebooks. Values are escaped unless a template marks them safe; links are built
with :func:`href` (each path segment percent-encoded).
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["render", "href"]

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


def href(*parts: str) -> str:
    """A relative link: each path segment percent-encoded (``#``, ``?``, spaces and ``%`` included)."""
    return "/".join(quote(p, safe="") for p in "/".join(parts).split("/"))
