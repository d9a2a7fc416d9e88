"""Bring your own inputs: documents -> pages, golden sets as CSV, retrieval logs in every preset; every bad input named."""

import json
import re

import pytest

from rag_metrics import InputError
from rag_metrics.cli import main
from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.log_matching import doc_key, resolve_documents
from rag_metrics.io.log_presets import PRESETS, parse_field_mapping
from rag_metrics.io.logs import load_log
from rag_metrics.io.pages import read_pages_jsonl, write_pages



@pytest.fixture
def pdf_maker():
    """tests/pdf_maker.py writes PDFs with pypdf: only the PDF tests need it (a module-level skip would hide every
    log, preset and CSV test below when pypdf is missing)."""
    return pytest.importorskip("pdf_maker", reason="tests/pdf_maker.py needs pypdf")


# ---- documents -> pages ------------------------------------------------------------------------

def test_pdf_pages_latin_japanese_and_an_empty_page(tmp_path, pdf_maker):
    docs = tmp_path / "docs"
    (docs / "hr").mkdir(parents=True)
    pdf_maker.make_pdf(["Expense claims are due within 30 days.\nReceipts above 25 EUR.", "",
                        "Page three: approval by the cost-centre owner."], docs / "policy.pdf", title="Policy")
    pdf_maker.make_pdf(["経費精算は翌月5日までに提出してください。\n領収書を添付すること。"], docs / "hr" / "経費.pdf")
    corpus = load_corpus(docs)
    assert list(corpus.documents.index) == ["hr/経費", "policy"]
    assert corpus.documents.at["policy", "title"] == "Policy" and corpus.documents.at["policy", "n_pages"] == 3
    assert corpus.page_text("policy", 1).split() == "Expense claims are due within 30 days. Receipts above 25 EUR.".split()
    assert "翌月5日までに提出してください" in corpus.page_text("hr/経費", 1)
    assert corpus.empty_pages == [("policy", 2)]
    # the same through the command line, then back from pages.jsonl
    out = tmp_path / "pages.jsonl"
    assert main(["pages", str(docs), "-o", str(out)]) == 0
    again = load_corpus(out)
    assert again.pages[["doc_id", "page", "text"]].equals(corpus.pages[["doc_id", "page", "text"]])


def test_unreadable_pdf_is_named(tmp_path, capsys):
    pytest.importorskip("pypdf")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    with pytest.raises(InputError, match=r"broken.pdf: not a readable PDF"):
        load_corpus(docs)
    assert main(["pages", str(docs), "-o", str(tmp_path / "p.jsonl")]) == 2  # outside the folder it reads
    assert "broken.pdf: not a readable PDF" in capsys.readouterr().err
    assert not (tmp_path / "p.jsonl").exists()


def test_sample_corpus_round_trips_through_pages_jsonl(tmp_path):
    sample = load_corpus(sample=True)
    path = write_pages(sample.pages.to_dict("records"), tmp_path / "pages.jsonl")
    again = load_corpus(path)
    assert again.pages[["doc_id", "page", "text"]].equals(sample.pages[["doc_id", "page", "text"]])
    assert again.documents["text"].equals(sample.documents["text"])  # the same offsets for chunks
    assert again.documents["genre"].equals(sample.documents["genre"])


def test_plain_text_pages(tmp_path):
    (tmp_path / "a.txt").write_text("first page\fsecond page\f", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Title\njust one page\n", encoding="utf-8")
    corpus = load_corpus(tmp_path)
    assert corpus.pages[["doc_id", "page"]].values.tolist() == [["a", 1], ["a", 2], ["b", 1]]
    assert corpus.page_text("a", 2) == "second page" and corpus.documents.at["b", "title"] == "Title"


@pytest.mark.parametrize("line, message", [
    ('{"doc_id": "d", "page": 1}', r":1: missing field 'text'"),
    ('{"doc_id": "d", "page": "1", "text": "x"}', r":1: page '1' of 'd' is not an integer >= 1"),
    ('{"doc_id": "d", "page": 0, "text": "x"}', r":1: page 0 of 'd' is not an integer >= 1"),
    ('{"doc_id": "d", "page": true, "text": "x"}', r":1: page True of 'd' is not an integer >= 1"),
    ('{"doc_id": "d", "page": 1, "text": null}', r":1: text of 'd' page 1 is not a string"),
    ('{"doc_id": "", "page": 1, "text": "x"}', r":1: doc_id '' is not a non-empty string"),
    ('{"doc_id": "d", "page": 1, "text": "x"', r":1: malformed JSON"),
])
def test_bad_pages_lines(tmp_path, line, message):
    path = tmp_path / "pages.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_pages_jsonl(path)


def test_pages_must_be_complete_and_unique(tmp_path):
    path = tmp_path / "pages.jsonl"
    rows = [{"doc_id": "d", "page": 1, "text": "a"}, {"doc_id": "d", "page": 3, "text": "c"}]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r":2: document 'd': pages must be numbered 1..n without gaps; missing \[2\]"):
        read_pages_jsonl(path)
    path.write_text("\n".join(json.dumps(r) for r in rows[:1] * 2), encoding="utf-8")
    with pytest.raises(InputError, match=r":2: page 1 of 'd' is listed twice \(also at line 1\)"):
        read_pages_jsonl(path)


# ---- golden sets -------------------------------------------------------------------------------

def test_csv_golden_set_long_form_equals_jsonl(tmp_path):
    jsonl = tmp_path / "g.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in [
        {"question_id": "q1", "question": "Deadline?", "type": "fact", "gold_pages": [["expense_policy", 3], ["faq_ja", 2]],
         "answer": "30 days"},
        {"question_id": "q2", "question": "Dental?", "type": "no_answer"},
        {"question_id": "q3", "question": "Later", "labelled": False},
    ]), encoding="utf-8")
    csv = tmp_path / "g.csv"
    csv.write_text("question_id,question,type,doc_id,page,answer,labelled\n"
                   "q1,Deadline?,fact,expense_policy,3,30 days,\n"
                   "q1,Deadline?,fact,faq_ja,2,30 days,\n"
                   "q2,Dental?,no_answer,,,,\n"
                   "q3,Later,,,,,false\n", encoding="utf-8")
    a, b = load_golden(jsonl), load_golden(csv)
    assert a.fingerprint() == b.fingerprint()
    assert b.gold_pages.values.tolist() == [["q1", "expense_policy", 3], ["q1", "faq_ja", 2]]
    assert b.backlog == ("q3",) and b.answerable == ["q1"]


def test_csv_with_json_cells_and_the_reference_sheet(tmp_path):
    sheet = tmp_path / "ref.csv"
    sheet.write_text('question_id,question,gold_pages\nr1,"What is X?","[[""manual"", 4]]"\n', encoding="utf-8")
    g = load_golden(sheet)
    assert g.gold_pages.values.tolist() == [["r1", "manual", 4]] and g.gold["doc_id"].tolist() == ["manual"]


@pytest.mark.parametrize("text, message", [
    ("question_id,question,doc_id,page\nq1,A?,d,x\n", r"g.csv:2: question 'q1': page 'x' is not an integer >= 1"),
    ("question_id,question,doc_id,page\nq1,A?,d,1\nq1,B?,d,2\n", r"g.csv:3: question 'q1': question differs from line 2"),
    ("question_id,question,page\nq1,A?,3\n", r"g.csv:2: question 'q1': 'page' given without 'doc_id'"),
    ("question,doc_id\nA?,d\n", r"g.csv:1: expected a header row with 'question_id'"),
    ("question_id,question,gold_docs\nq1,A?,[d\n", r"g.csv:2: question 'q1': column 'gold_docs' must hold JSON"),
    ("question_id,question,doc_id,relevance\nq1,A?,d,NaN\n", r"g.csv:2: question 'q1': relevance 'NaN' is not a finite number"),
])
def test_bad_csv_golden_sets(tmp_path, text, message):
    path = tmp_path / "g.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_golden(path)


# ---- retrieval logs ----------------------------------------------------------------------------

PRESET_RECORDS = {
    "native": {"question_id": "q1", "question": "Q?", "retrieved": [
        {"doc_id": "expense_policy", "page": 3, "chunk_id": "c1", "text": "T1", "score": 0.9},
        {"doc_id": "faq_ja", "pages": [2, 3], "text": "T2"}], "answer": "A", "latency_ms": 12.5},
    "langchain": {"question_id": "q1", "query": "Q?", "result": "A", "latency_ms": 12.5, "source_documents": [
        {"id": "c1", "page_content": "T1", "metadata": {"source": "/srv/docs/expense_policy.pdf", "page": 2, "score": 0.9},
         "type": "Document"},
        {"page_content": "T2", "metadata": {"source": "docs/faq_ja.md", "page": 1}}]},
    "llamaindex": {"question_id": "q1", "query": "Q?", "response": "A", "latency_ms": 12.5, "source_nodes": [
        {"node": {"id_": "c1", "text": "T1", "metadata": {"file_name": "expense_policy.pdf", "page_label": "3"}},
         "score": 0.9},
        {"node": {"text": "T2", "metadata": {"file_name": "faq_ja.md", "page_label": "2"}}, "score": None}]},
    "bedrock": {"question_id": "q1", "question": "Q?", "answer": "A", "latency_ms": 12.5, "retrievalResults": [
        {"content": {"text": "T1", "type": "TEXT"}, "location": {"type": "S3", "s3Location": {
            "uri": "s3://kb-bucket/docs/expense_policy.pdf"}}, "score": 0.9,
         "metadata": {"x-amz-bedrock-kb-document-page-number": 3.0, "x-amz-bedrock-kb-chunk-id": "c1"}},
        {"content": {"text": "T2"}, "location": {"s3Location": {"uri": "s3://kb-bucket/docs/faq_ja.md"}},
         "metadata": {"x-amz-bedrock-kb-document-page-number": 2}}]},
}


@pytest.mark.parametrize("preset", list(PRESET_RECORDS))
def test_each_preset_reads_the_same_run(tmp_path, preset):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(PRESET_RECORDS[preset]) + "\n", encoding="utf-8")
    log = load_log(path, preset=preset)
    run = log.run
    assert run["rank"].tolist() == [1, 2] and run["text"].tolist() == ["T1", "T2"]
    if preset == "llamaindex":  # a printed label, never a page: the pages come from the text
        assert run["pages"].tolist() == [(), ()] and run["page_label"].tolist() == ["3", "2"]
    else:
        assert run["pages"].iloc[0] == (3,) and 2 in run["pages"].iloc[1]
    assert run["chunk_id"].iloc[0] == "c1" and run["score"].iloc[0] == 0.9
    mapping, report = resolve_documents(run["doc_id"], load_corpus(sample=True).documents.index)
    assert [mapping[d] for d in run["doc_id"]] == ["expense_policy", "faq_ja"]
    assert log.questions["answer"].tolist() == ["A"] and log.latency()["median_ms"] == 12.5


def test_ragas_rows_have_parallel_lists(tmp_path):
    path = tmp_path / "ragas.jsonl"
    path.write_text(json.dumps({"user_input": "Q?", "retrieved_contexts": ["T1", "T2"],
                                "retrieved_context_ids": ["c1", "c2"], "response": "A"}) + "\n", encoding="utf-8")
    log = load_log(path, preset="ragas")
    assert log.run[["rank", "chunk_id", "text"]].values.tolist() == [[1, "c1", "T1"], [2, "c2", "T2"]]
    assert log.run["doc_id"].isna().all() and log.questions["question"].tolist() == ["Q?"]
    path.write_text(json.dumps({"user_input": "Q?", "retrieved_contexts": ["T1"], "retrieved_context_ids": []}) + "\n")
    with pytest.raises(InputError, match=r"must be lists of one length"):
        load_log(path, preset="ragas")


def test_field_mapping_and_page_base(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"qid": "q1", "hits": [{"src": {"name": "manual.pdf"}, "p": 0, "body": "x"}]}) + "\n")
    fields = parse_field_mapping(["question_id=qid", "items=hits", "doc_id=src.name", "page=p", "text=body"])
    log = load_log(path, fields=fields, page_base=0)
    assert log.run[["question_id", "doc_id", "pages", "text"]].values.tolist() == [["q1", "manual.pdf", (1,), "x"]]
    with pytest.raises(InputError, match=r"the mapping of page \(p\) must state where its page numbers start: add "
                                         r"--page-base 0 or --page-base 1, or write --field page@0=p"):
        load_log(path, fields=fields)  # never the preset's base
    at_one = parse_field_mapping(["question_id=qid", "items=hits", "doc_id=src.name", "page@1=p", "text=body"])
    assert at_one["page_base"] == 1 and at_one["page"] == "p"
    with pytest.raises(InputError, match=r"page 0 \(field p\) is not an integer >= 1 \(pages counted from 1"):
        load_log(path, fields=at_one)
    at_zero = parse_field_mapping(["question_id=qid", "items=hits", "doc_id=src.name", "page@0=p", "text=body"])
    assert load_log(path, fields=at_zero).run["pages"].tolist() == [(1,)]
    with pytest.raises(InputError, match="states base 0 and --page-base says 1"):
        load_log(path, fields=at_zero, page_base=1)
    with pytest.raises(InputError, match="field mapping 'colour=x'"):
        parse_field_mapping(["colour=x"])


def test_doc_keys_and_resolution():
    assert doc_key("s3://bucket/a%20b/Manual%201.pdf") == "Manual 1"
    assert doc_key("https://intranet/docs/faq_ja.html?v=2#top") == "faq_ja"
    mapping, report = resolve_documents(["manual", "s3://x/faq.pdf", "s3://x/other.pdf", "x/a/dup.pdf"],
                                        ["manual", "faq", "a/dup", "b/dup"])
    assert mapping == {"manual": "manual", "s3://x/faq.pdf": "faq", "s3://x/other.pdf": None, "x/a/dup.pdf": "a/dup"}
    assert (report["exact"], report["by_path_suffix"], report["unmatched"]) == (1, 2, 1)
    with pytest.raises(InputError, match=r"document 'dup.pdf' fits 2 documents equally well: a/dup, b/dup"):
        resolve_documents(["dup.pdf"], ["manual", "a/dup", "b/dup"])


@pytest.mark.parametrize("record, kwargs, message", [
    ("{not json", {}, r"log.jsonl:1: malformed JSON"),
    ({"question_id": "q1", "retrieved": [{"page": 3, "text": "x"}]}, {},
     r"log.jsonl:1: question 'q1', retrieved item 1 has no document \(field doc_id\)"),
    ({"question_id": "q1", "retrieved": [{"doc_id": "d", "page": "three"}]}, {},
     r"log.jsonl:1: question 'q1', retrieved item 1: page 'three' \(field page\) is not an integer >= 1"),
    ({"question_id": "q1", "retrieved": [{"doc_id": "d", "page": 2.5}]}, {}, r"page 2.5 \(field page\) is not an integer"),
    ({"question_id": "q1", "retrieved": [{"doc_id": "d", "score": "high"}]}, {}, r"score 'high' is not a finite number"),
    ({"question_id": "q1", "results": []}, {}, r"question 'q1': no list of retrieved items at retrieved"),
    ({"question_id": "q1", "retrieved": []}, {"preset": "lucene"}, r"unknown log preset 'lucene'"),
    ({"question_id": "q1", "retrieved": [{"doc_id": "d"}]}, {"fields": {"doc_id": "meta.nope"}},
     r"retrieved item 1 has no document \(field meta.nope\)"),
    ({"retrieved": [{"doc_id": "d"}]}, {}, r"neither a question ID \(question_id\) nor a question"),
    ({"question_id": "q1", "retrieved": [], "latency_ms": -1}, {}, r"latency_ms -1 is not a finite number >= 0"),
])
def test_bad_logs_are_named(tmp_path, record, kwargs, message):
    path = tmp_path / "log.jsonl"
    path.write_text((record if isinstance(record, str) else json.dumps(record)) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_log(path, **kwargs)


def test_a_question_logged_twice(tmp_path):
    path = tmp_path / "log.jsonl"
    rec = json.dumps({"question_id": "q1", "retrieved": []})
    path.write_text(rec + "\n" + rec + "\n")
    with pytest.raises(InputError, match=r"log.jsonl:2: question 'q1' is logged twice \(also at line 1\)"):
        load_log(path)


def test_presets_are_documented():
    import rag_metrics.io.log_presets as log_presets

    for name in PRESETS:
        assert re.search(rf"^{name}\s", log_presets.__doc__, re.M), name


def test_an_items_pages_are_read_once_each_in_order(tmp_path):
    """``page`` repeated in ``pages``, a page listed twice, pages out of order: each page once, ascending -- the same
    item whichever way a producer wrote it (and so the same fingerprint)."""
    items = [{"doc_id": "expense_policy", "page": 2, "pages": [2, 3]}, {"doc_id": "expense_policy", "pages": [4, 4, 3]},
             {"doc_id": "expense_policy", "pages": [2, 3]}, {"doc_id": "expense_policy", "pages": [3, 4]}]
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"question_id": "q001", "retrieved": items}) + "\n", encoding="utf-8")
    log = load_log(path)
    assert log.run["pages"].tolist() == [(2, 3), (3, 4), (2, 3), (3, 4)]
    same = tmp_path / "same.jsonl"
    same.write_text(json.dumps({"question_id": "q001", "retrieved": [items[2], items[3], items[2], items[3]]}) + "\n",
                    encoding="utf-8")
    assert load_log(same).fingerprint() == log.fingerprint()
