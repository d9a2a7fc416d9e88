"""Chunk boundaries, offsets, pages and stable IDs."""

import pytest

from rag_metrics.retrieval.chunking import chunk_by_heading, chunk_fixed, indexed_text
from rag_metrics.io.corpus import load_corpus
from rag_metrics.core.text import token_spans, tokenize


def _check_offsets_and_pages(corpus, chunks):
    for row in chunks.itertuples():
        text = corpus.text(row.doc_id)
        assert text[row.start:row.end] == row.text
        pages = corpus.pages[corpus.pages["doc_id"] == row.doc_id]
        page_of = lambda off, pages=pages: int(pages.loc[pages["start"] <= off, "page"].max())  # noqa: E731
        assert row.start_page == page_of(row.start) and row.end_page == page_of(row.end - 1)


@pytest.mark.parametrize("size, overlap", [(200, 0), (400, 100), (1000, 250)])
def test_fixed_char_chunks(corpus, size, overlap):
    chunks = chunk_fixed(corpus, size, overlap)
    _check_offsets_and_pages(corpus, chunks)
    assert (chunks["end"] - chunks["start"]).max() <= size
    for doc_id, group in chunks.groupby("doc_id"):
        starts = group["start"].tolist()
        assert starts[0] == 0 and all(b - a == size - overlap for a, b in zip(starts, starts[1:]))
        assert group["end"].max() == len(corpus.text(doc_id).rstrip("\n")) or group["end"].max() == len(corpus.text(doc_id))
    # some chunks start mid-page: they hold the page's text but not its marker
    mid = chunks[~chunks["text"].str.startswith("[p.")]
    assert len(mid) > len(chunks) / 2


def test_fixed_token_chunks(corpus):
    chunks = chunk_fixed(corpus, 120, 30, unit="token")
    _check_offsets_and_pages(corpus, chunks)
    for row in chunks.itertuples():
        assert len(token_spans(row.text)) <= 120
    assert chunks["chunk_id"].iloc[0].endswith("#t120o30#0000")


def test_chunk_ids_are_stable_and_unique(corpus):
    a, b = chunk_fixed(corpus, 300, 50), chunk_fixed(load_corpus(sample=True), 300, 50)
    assert a["chunk_id"].tolist() == b["chunk_id"].tolist()
    assert a["chunk_id"].is_unique
    assert not set(a["chunk_id"]) & set(chunk_fixed(corpus, 300, 0)["chunk_id"])  # config is in the ID


def test_heading_chunks(corpus):
    chunks = chunk_by_heading(corpus, max_chars=250)
    _check_offsets_and_pages(corpus, chunks)
    assert (chunks["end"] - chunks["start"]).max() <= 250
    first = chunks[chunks["doc_id"] == "expense_policy"].iloc[0]
    assert first["prefix"] == "Expense Reimbursement Policy › 1 Scope › 1.1 Purpose"
    assert indexed_text(chunks.iloc[:1])[0].startswith(first["prefix"] + "\n")
    plain = chunk_by_heading(corpus, prefix=False)
    assert (plain["prefix"] == "").all() and plain["chunk_id"].iloc[0].endswith("#h1200#0000")
    # every section heading starts a chunk
    sections = corpus.headings[corpus.headings["level"] == 2]
    starts = set(zip(chunks["doc_id"], chunks["start"]))
    assert all((d, s) in starts for d, s in zip(sections["doc_id"], sections["start"]))


@pytest.mark.parametrize("kwargs, message", [
    ({"size": 0}, "'size' parameter must be an int >= 1"),
    ({"size": 100, "overlap": 100}, "0 <= overlap < size"),
    ({"size": 100, "unit": "word"}, "'unit' parameter of chunk_fixed must be one of \\('char', 'token'\\)"),
])
def test_bad_chunk_parameters(corpus, kwargs, message):
    with pytest.raises(ValueError, match=message):
        chunk_fixed(corpus, **kwargs)


def test_tokenizer_handles_japanese_and_full_width():
    assert tokenize("翌月５日") == tokenize("翌月5日") == ["翌月", "5", "日"]
    assert tokenize("USB storage") == ["usb", "storage"]


def test_a_word_joined_by_a_dot_apostrophe_hyphen_or_comma_is_one_token():
    text = "0.30 don't e-mail 1,500 a+b"
    words = [text[s:e] for s, e in token_spans(text)]
    assert words == ["0.30", "don't", "e-mail", "1,500", "a", "b"]
    assert tokenize(text) == ["0.30", "don't", "e-mail", "1,500", "a", "b"]


def test_accented_latin_letters_from_u00c0_to_u024f_stay_inside_a_word():
    text = "Àpple caféɏ"  # U+00C0 and U+024F are the ends of the accented-Latin range
    assert [text[s:e] for s, e in token_spans(text)] == ["Àpple", "caféɏ"]
    outside = "a\u00bfb a\u0250b"  # U+00BF and U+0250, just outside the range, split a word
    assert [outside[s:e] for s, e in token_spans(outside)] == ["a", "b", "a", "b"]


def test_no_chunk_lies_wholly_inside_the_previous_chunks_overlap():
    """faq_ja has 1,205 characters: at size 400, overlap 100 the last chunk is [900, 1205), and no fifth chunk
    [1200, 1205) holding only text the fourth already holds."""
    chunks = chunk_fixed(load_corpus(sample=True), 400, 100)
    faq = chunks[chunks["doc_id"] == "faq_ja"]
    assert faq[["start", "end"]].values.tolist() == [[0, 400], [300, 700], [600, 1000], [900, 1205]]
