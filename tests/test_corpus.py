"""The sample corpus and golden set: shape, hand labels checked against the text, and validation."""

import json
import shutil

import pytest

from rag_metrics import InputError
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.core.text import normalize


def test_corpus_shape(corpus):
    docs = corpus.documents
    assert len(docs) >= 8 and docs["n_pages"].sum() >= 80
    assert (docs["language"] == "ja").sum() >= 3 and (docs["language"] == "en").sum() >= 3
    assert set(docs["genre"]) >= {"policy", "manual", "faq", "legal"}
    for doc_id, doc in docs.iterrows():
        pages = corpus.pages[corpus.pages["doc_id"] == doc_id]
        assert pages["page"].tolist() == list(range(1, doc["n_pages"] + 1))
        assert all(t.startswith(f"[p.{p}]") for p, t in zip(pages["page"], pages["text"]))
    # two documents share section titles
    sections = corpus.headings[corpus.headings["level"] == 2]
    titles = sections.assign(t=sections["title"].str.replace(r"^[\d.]+ ", "", regex=True))
    shared = titles.groupby("t")["doc_id"].nunique()
    assert (shared >= 2).any()


def test_golden_shape(golden):
    q = golden.questions
    assert len(q) >= 60
    assert (q["type"] == "no_answer").sum() >= 5
    assert len(golden.backlog) >= 3
    assert (q["type"] == "multi_hop").sum() >= 3
    # the loader keeps no_answer and unlabelled apart
    no_answer = set(q.index[q["type"] == "no_answer"])
    assert not no_answer & set(golden.backlog)
    assert set(golden.gold["question_id"]) == set(q.index[q["labelled"]])
    assert golden.gold.loc[golden.gold["question_id"].isin(no_answer), "doc_id"].isna().all()


def test_every_answer_occurs_in_one_of_its_gold_pages(corpus, golden):
    """Checks the hand labels: the expected answer is on a gold page (after NFKC normalization)."""
    q = golden.questions
    checked = 0
    for qid, row in q[q["labelled"] & ~q["type"].isin(["no_answer", "multi_hop"])].iterrows():
        pages = golden.gold_pages[golden.gold_pages["question_id"] == qid]
        texts = [normalize(corpus.page_text(d, p)).lower() for d, p in zip(pages["doc_id"], pages["page"])]
        assert any(normalize(row["answer"]).lower() in t for t in texts), (qid, row["answer"])
        checked += 1
    assert checked >= 50


@pytest.fixture
def golden_copy(tmp_path):
    src = data_dir() / "golden.jsonl"
    lines = src.read_text(encoding="utf-8").splitlines()

    def write(edit_line, value):
        out = list(lines)
        out[edit_line - 1] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        path = tmp_path / "golden.jsonl"
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        return path

    return write, [json.loads(line) for line in lines]


@pytest.mark.parametrize(
    "line, change, message",
    [
        (2, "{not json", r"golden.jsonl:2: malformed JSON"),
        (2, {"gold_docs": ["handbook"], "gold_pages": []},
         r"golden.jsonl:2: question 'q002': gold document 'handbook' is not in the corpus"),
        (2, {"gold_pages": [["expense_policy", 13]]}, r"golden.jsonl:2: question 'q002': gold page 13 of 'expense_policy' is out of range 1..12"),
        (2, {"question_id": "q001"}, r"golden.jsonl:2: question 'q001': duplicate question_id \(first at line 1\)"),
        (2, {"type": 3}, r"golden.jsonl:2: question 'q002': field 'type' must be a string"),
        (2, {"question": None}, r"golden.jsonl:2: question 'q002': field 'question' must be a non-empty string"),
        # issue 13: values JSON parsers let through
        (1, '{"question_id": "q001", "question": "x", "gold_docs": ["expense_policy"], "relevance": {"expense_policy": NaN}}',
         r"golden.jsonl:1: NaN is not a JSON number"),
        (1, '{"question_id": "q001", "question": "x", "gold_docs": ["expense_policy"], "relevance": {"expense_policy": Infinity}}',
         r"golden.jsonl:1: Infinity is not a JSON number"),
        (2, {"gold_docs": ["expense_policy", "expense_policy"]}, r"question 'q002': gold_docs lists 'expense_policy' twice"),
        (2, {"gold_pages": [["expense_policy", 4], ["expense_policy", 4]]}, r"gold_pages lists \['expense_policy', 4\] twice"),
        (2, {"gold_pages": [["expense_policy", True]]}, r"question 'q002': page True is not an integer >= 1"),
        (2, {"gold_pages": [["expense_policy", 0]]}, r"question 'q002': page 0 is not an integer >= 1"),
        (2, {"labelled": "yes"}, r"'labelled' must be true or false, got 'yes'"),
        (2, {"gold_pages": [["travel_policy", 2]]}, "document 'travel_policy' is not in gold_docs"),
        (2, {"type": "no_answer"}, "a no_answer question cannot have gold"),
        (2, {"labelled": False}, "an unlabelled question cannot have gold"),
        (2, {"relevance": {"expense_policy": "high"}}, "question 'q002': relevance 'high' is not a finite number"),
    ],
)
def test_golden_validation_names_file_line_and_question(golden_copy, corpus, line, change, message):
    write, rows = golden_copy
    value = change if isinstance(change, str) else {**rows[line - 1], **change}
    path = write(line, value)
    with pytest.raises(InputError, match=message) as err:
        load_golden(path, corpus=corpus)
    assert str(path) in str(err.value)


def test_golden_file_errors(tmp_path, corpus):
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes('{"question_id": "q1", "question": "caf\u00e9?", "type": "no_answer"}\n'.encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1.jsonl:1: not valid UTF-8 text \(byte 38"):
        load_golden(latin)
    with pytest.raises(InputError, match=r": is a directory; expected a golden set"):
        load_golden(tmp_path)
    with pytest.raises(InputError, match=r"missing.jsonl: file not found"):
        load_golden(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n \n")
    with pytest.raises(InputError, match=r"empty.jsonl: file is empty"):
        load_golden(empty)


def test_corpus_validation(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(data_dir() / "corpus", folder)
    doc = folder / "faq_ja.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("[p.3]", "[p.4]", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"faq_ja.md:\d+: page marker \[p.4\] out of sequence; expected \[p.3\]"):
        load_corpus(folder)
    doc.write_text("---\ndoc_id: faq_ja\n[p.1]\ntext\n", encoding="utf-8")
    with pytest.raises(InputError, match="faq_ja.md:1: front matter is not closed"):
        load_corpus(folder)
    doc.write_text("---\ndoc_id: other\n---\n[p.1]\ntext\n", encoding="utf-8")
    with pytest.raises(InputError, match="faq_ja.md:2: doc_id 'other' differs from the file's document ID 'faq_ja'"):
        load_corpus(folder)


def test_the_sample_is_read_only_when_asked_for(tmp_path, monkeypatch):
    """No loader falls back to the project's data/ when a path is left out: an installed package has none, and a
    team's figures must not silently come from the sample."""
    from rag_metrics import InputError
    from rag_metrics.io.corpus import load_answers
    from rag_metrics.io.golden import load_golden

    for load, what in ((load_corpus, "your documents"), (load_golden, "the golden set"),
                       (load_answers, "the logged answers")):
        with pytest.raises(InputError, match=f"{load.__name__}: give the path of {what}.*, or sample=True"):
            load()
        with pytest.raises(InputError, match="not both"):
            load(tmp_path / "x", sample=True)
    assert load_golden(sample=True).questions.shape[0] == load_golden(data_dir() / "golden.jsonl").questions.shape[0]
    assert load_corpus(sample=True).source == str(data_dir() / "corpus")
    monkeypatch.setenv("RAG_METRICS_DATA", str(tmp_path))  # an install without the sample
    with pytest.raises(InputError, match="sample data is not here"):
        load_corpus(sample=True)


def test_the_builtin_retriever_needs_the_documents(tmp_path, monkeypatch, capsys):
    from rag_metrics.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "--retriever", "bm25", "--golden", str(data_dir() / "golden.jsonl"), "--no-progress"]) == 2
    assert "give --pages PATH" in capsys.readouterr().err and not (tmp_path / "runs").exists()
