"""The golden-set review at its edges, by value: a similarity exactly at the threshold, a folded answer's last
character, a four-character document name, and markup in the page text and the answer of the review page."""

import pandas as pd

from rag_metrics.golden.generate import Draft
from rag_metrics.golden.review import find_span, flag_context_dependent, near_duplicates, review_draft, review_html
from rag_metrics.golden.sampler import sample_pages
from rag_metrics.io.corpus import corpus_from_pages


def test_a_similarity_equal_to_the_threshold_is_a_near_duplicate():
    # trigrams {abc, bcd, cde} and {abc, bcd, cdf}: 2 shared of 4, Jaccard exactly 0.5
    assert near_duplicates(["abcde", "abcdf"], 0.5) == [(0, 1, 0.5)]
    assert near_duplicates(["abcde", "abcdf"], 0.51) == []
    assert near_duplicates(["Same question?", "same  QUESTION"], 1.0) == [(0, 1, 1.0)]


def test_a_folded_match_spans_the_whole_answer():
    text = "Refunds: within  THIRTY\n days of the claim."
    s, e = find_span(text, "thirty days")
    assert text[s:e] == "THIRTY\n days"
    s, e = find_span("ａｂｃ def", "abc def")  # full-width letters fold to ASCII (NFKC)
    assert (s, e) == (0, 7)


def test_a_four_character_document_name_in_the_question_is_flagged():
    assert flag_context_dependent("What does the Memo say about parking?", title="Memo") == \
        ["names the document: 'Memo'"]
    assert flag_context_dependent("Is there a FAQ about parking?", title="FAQ") == []  # 3 characters: too common


PAYLOAD = '<img src=x onerror="alert(1)">'


def test_the_review_page_escapes_the_page_text_and_the_question():
    page = ("The parking garage opens at 7 am. " + PAYLOAD + " Visitors park on level two, "
            "and employees use levels three and four with their badge.")
    corpus = corpus_from_pages([{"doc_id": "facilities", "page": 1, "text": page, "title": "Facilities"}])
    sample = sample_pages(corpus, 1, min_chars=20, seed=0)
    rows = [{"question_id": "g1", "question": "Where do visitors park? " + PAYLOAD, "answer": "level two",
             "type": "fact", "evidence": "Visitors park on level two", "doc_id": "facilities", "page": 1,
             "generator": "hand", "prompt_version": "x"},
            {"question_id": "g2", "question": "What does the garage sign say?", "answer": PAYLOAD, "type": "fact",
             "evidence": PAYLOAD, "doc_id": "facilities", "page": 1, "generator": "hand", "prompt_version": "x"}]
    draft = Draft(pd.DataFrame(rows), pd.DataFrame(columns=["doc_id", "page", "error"]), {})
    html = review_html(review_draft(draft, sample), draft, sample)
    assert "<img" not in html
    escaped = "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"
    # g1: in its question and in its page text; g2: in its answer line and highlighted in its page text
    assert html.count(escaped) == 4
    assert "<mark>level two</mark>" in html and f"<mark>{escaped}</mark>" in html
