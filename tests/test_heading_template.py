"""The heading-template flag: a page heading wrapped in a template, and the cases on each side of its boundaries."""

from __future__ import annotations

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.golden.flags import HEADING_TEMPLATE, heading_template
from rag_metrics.golden.generate import generate_questions
from rag_metrics.golden.generators import ExtractiveGenerator
from rag_metrics.golden.review_file import review_draft
from rag_metrics.golden.sampler import sample_pages
from rag_metrics.io.corpus import load_corpus

PAGE = ("[p.3]\n# 2 Submitting a claim\n## 2.1 Deadline\nEvery claim must be submitted within 30 days.\n"
        "## 2.2 What to attach\nAttach one receipt per line.\n## Booking channel\nBook through the portal.\n")
PAGE_JA = "[p.7]\n## 第3条 支払条件\n支払は月末締め翌月末払いとする。\n## 解約について\n解約は30日前に通知する。\n## 休暇の申請\n申請は前日までに行う。\n"


@pytest.mark.parametrize("question", [
    "What are the rules on deadline?",           # the heading, numbering "2.1" removed
    "What are the rules on Deadline ?",          # case and a space before the mark fold away
    "What are the rules on the deadline?",       # a leading article
    "What is the procedure for submitting a claim?",
    "What is the procedure for booking channel?",
    "Tell me about deadline",
])
def test_a_heading_wrapped_in_a_template_is_flagged(question):
    reason = heading_template(question, PAGE)
    assert reason is not None and reason.startswith(HEADING_TEMPLATE + ": ")


@pytest.mark.parametrize("question", [
    "支払条件について教えてください。",     # 第3条 removed from the heading
    "解約について教えてください。",         # the heading itself ends with について
    "休暇の申請の手順を教えてください。",
    "休暇の申請はどうすればよいですか。",
])
def test_a_japanese_heading_wrapped_in_a_template_is_flagged(question):
    assert heading_template(question, PAGE_JA).startswith(HEADING_TEMPLATE)


@pytest.mark.parametrize("question", [
    "What are the rules on deadline extensions?",  # more than the heading: a real topic
    "What are the rules on dead?",                 # part of a heading is not a heading
    "What are the rules on refunds?",              # a template around words that are no heading of the page
    "What is the deadline for submitting a claim?",  # the page's words, but a question a user would ask
    "What to attach?",                             # a heading that is a question already: the heading itself
    "Deadline",                                    # the heading without a template
    "Submitting a claim: what are the rules on deadline?",  # the template not the whole question
])
def test_anything_else_is_not_flagged(question):
    assert heading_template(question, PAGE) is None


def test_japanese_boundaries():
    assert heading_template("支払について教えてください。", PAGE_JA) is None  # a part of the heading
    assert heading_template("支払条件の例外について教えてください。", PAGE_JA) is None  # more than the heading
    assert heading_template("支払条件とは何ですか。", PAGE_JA) is None  # another template: a definition


def test_body_text_is_not_a_heading():
    # the words are a whole line of the page, but a line of body text, not a Markdown heading
    page = "[p.1]\n## Scope\nDeadline\nEvery claim counts.\n"
    assert heading_template("What are the rules on deadline?", page) is None
    assert heading_template("What are the rules on scope?", page) is not None


def test_without_a_page_nothing_is_flagged_and_a_non_string_is_refused():
    assert heading_template("What are the rules on deadline?", None) is None
    assert heading_template("What are the rules on deadline?", "") is None
    with pytest.raises(InputError, match="question must be a string"):
        heading_template(None, PAGE)


def test_review_flags_the_extractive_generators_section_questions_and_can_leave_them():
    corpus = load_corpus(sample=True)
    sample = sample_pages(corpus, 3, min_chars=200, seed=0)
    draft = generate_questions(sample, ExtractiveGenerator(n=2), workers=1)
    review = review_draft(draft, sample).set_index("question_id")
    assert review.at["expense_policy-p3-q2", "question"] == "What are the rules on deadline?"
    assert review.at["expense_policy-p3-q2", "reasons"] == f"{HEADING_TEMPLATE}: 'deadline'"
    assert review.at["expense_policy-p3-q2", "decision"] == "drop"
    assert review.at["expense_policy-p3-q1", "reasons"] == ""  # "What to attach?": the FAQ-style heading itself
    unflagged = review_draft(draft, sample, heading_templates=False).set_index("question_id")
    assert unflagged.at["expense_policy-p3-q2", "decision"] == "keep"
    assert not unflagged["reasons"].str.contains(HEADING_TEMPLATE).any()
    differs = review.index[review["decision"] != unflagged["decision"]]
    assert len(differs) == 34 and review.loc[differs, "reasons"].str.startswith(HEADING_TEMPLATE).all()


@pytest.mark.parametrize("number", ["Q1 ", "Q 12 ", "q3 ", "Ｑ２ "])
def test_an_faq_number_is_not_part_of_the_heading(number):
    """FAQ headings carry their number ("## Q1 Parking"); the headings are case-folded before the number is stripped,
    so an upper-case pattern alone never matched and FAQ pages were never flagged."""
    page = f"## {number}Parking\nUse the east gate.\n"
    assert heading_template("Tell me about parking", page).startswith(HEADING_TEMPLATE)
