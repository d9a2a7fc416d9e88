"""rag_metrics.core.html.md_escape: a parameter or a value from a user's file, shown in a notebook's Markdown, renders as
its own text -- no code span, link, image, emphasis or raw HTML of its own -- in the renderer of the HTML report
(nbconvert's mistune)."""

import html
import re

import pytest

from rag_metrics.core.html import md_escape

markdown2html = pytest.importorskip("nbconvert.filters.markdown_mistune").markdown2html_mistune

HOSTILE = [
    "gpt`<img src=x onerror=alert(1)>`",  # the model name of notebook 08's review: a code span around raw HTML
    "`code` and ``double``",
    "a ` lone backtick",
    "[x](javascript:alert(1))",
    "![img](y.png)",
    "*em* _em_ **strong** ~~gone~~",
    "<script>alert(1)</script>",
    "# heading\n- item",
    "q&a \"quoted\" 'single'",
    "1. not a list",
    "back\\slash \\` escaped tick",
    "| a | b |",
    "www.evil.example and https://evil.example/x",
    "<https://evil.example>",
    "&lt;script&gt; and &#60;b&#62;",
    "> a quote",
    "2) second",
    "3. third",
]


def _text(rendered: str) -> str:
    """The rendered HTML's text: one paragraph expected, its tags (none but <p>) removed, entities decoded."""
    assert re.fullmatch(r"<p>.*</p>\s*", rendered, flags=re.S), rendered
    inner = re.sub(r"^<p>|</p>\s*$", "", rendered)
    assert "<" not in inner, f"markup in the rendered text: {rendered!r}"
    return html.unescape(inner)


@pytest.mark.parametrize("value", HOSTILE)
def test_an_escaped_value_renders_as_its_own_text(value):
    shown = markdown2html(f"model {md_escape(value)} here")
    assert _text(shown) == f"model {' '.join(value.splitlines())} here"


def test_backticks_open_no_code_span_even_in_a_sentence_that_has_one():
    shown = markdown2html(f"`{md_escape('kept`')}` and {md_escape('`<b>x</b>`')}")
    assert "<b>" not in shown and shown.count("<code>") <= 1


def test_unescaped_backticks_would_have_opened_a_code_span():
    """The test above can fail: the same value without md_escape renders markup."""
    assert "<code>" in markdown2html("model `x` here")
    assert "<img" in markdown2html("model `gpt`<img src=x onerror=alert(1)>`` here")  # 08's sentence before


@pytest.mark.parametrize("value", ["- item", "+ item", "1. first"])
def test_a_value_that_starts_a_list_on_its_own_renders_as_text(value):
    """Alone in a Markdown cell a leading ``-``, ``+`` or ``1.`` would open a list: each is escaped."""
    assert _text(markdown2html(md_escape(value))) == value
    assert md_escape("- 1") == "\\- 1" and md_escape("-1") == "-1"  # a number is not a list item


@pytest.mark.parametrize("value", ["# q1", "## heading", "#tag"])
def test_a_value_that_starts_with_a_hash_is_not_a_heading(value):
    assert md_escape(value).startswith("\\#")
    assert "<h" not in markdown2html(md_escape(value))


@pytest.mark.parametrize("value", ["0.815 (p < 0.001)", "+0.026, interval -0.129 to 0.129", "3 wins & 0 losses",
                                   "1.5 days", "x > y", "it's \"quoted\"", "p = 0.04996!"])
def test_what_cannot_form_markup_stays_readable_in_the_raw_markdown(value):
    """Issue 47: the gate's Markdown read `0\\.815` and `\\(p &lt; 0\\.001\\)`; figures and prose are left as written."""
    assert md_escape(value) == value
    assert _text(markdown2html(f"model {md_escape(value)} here")) == f"model {value} here"


@pytest.mark.parametrize("value", ["www.evil.example", "evil.example", "a@evil.example"])
def test_a_bare_domain_does_not_become_a_link(value):
    assert "<a " not in markdown2html(f"see {md_escape(value)} now")
