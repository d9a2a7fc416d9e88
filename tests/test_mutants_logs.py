"""Each preset's paths by value, from objects the frameworks make: the question of a LangChain chain that logs no
ID, PyPDFLoader's 0-based pages, LlamaIndex's answer and file name beside a source-document ID, Bedrock's page
numbers, ragas' user_input; ranks from 1; a page below the log's base refused."""

import json

import pytest

from rag_metrics import InputError
from rag_metrics.io.logs import load_log
from tests.test_presets import kb_response, stubbed_client


def _write(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_langchain_question_from_query_and_pages_from_pypdf(tmp_path):
    from langchain_core.documents import Document

    docs = [Document(page_content="Claims are paid within 30 days.", metadata={"source": "/srv/policy.pdf", "page": 0}),
            Document(page_content="Receipts above 25 EUR.", metadata={"source": "/srv/policy.pdf", "page": 3})]
    path = _write(tmp_path / "lc.jsonl", [{"query": "When are claims paid?", "result": "Within 30 days.",
                                          "source_documents": [d.model_dump() for d in docs]}])
    log = load_log(path, preset="langchain")
    assert log.questions["question"].tolist() == ["When are claims paid?"]
    assert log.questions["answer"].tolist() == ["Within 30 days."]
    assert log.run["pages"].tolist() == [(1,), (4,)]  # PyPDFLoader counts from 0
    assert log.run["rank"].tolist() == [1, 2]


def test_llamaindex_answer_and_file_name(tmp_path):
    """SimpleDirectoryReader's metadata holds file_name and file_path; the preset logs the file name."""
    from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

    node = TextNode(text="Filters are changed every month.", id_="chunk-7",
                    metadata={"file_name": "manual.pdf", "file_path": "/srv/docs/manual.pdf", "page_label": "iv"},
                    relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id="4f1c-source-doc")})
    assert NodeWithScore(node=node, score=0.8).node.ref_doc_id == "4f1c-source-doc"
    path = _write(tmp_path / "li.jsonl", [{"question_id": "q1", "query": "How often are filters changed?",
                                          "response": "Every month.",
                                          "source_nodes": [NodeWithScore(node=node, score=0.8).model_dump()]}])
    log = load_log(path, preset="llamaindex")
    assert log.questions["answer"].tolist() == ["Every month."]
    assert log.run["logged_doc_id"].tolist() == ["manual.pdf"]
    assert log.run["page_label"].tolist() == ["iv"] and log.run["chunk_id"].tolist() == ["chunk-7"]


def test_bedrock_page_numbers(tmp_path):
    items = [{"doc_id": "policy", "page": 3, "text": "Claims within 30 days.", "chunk_id": "c1", "score": 0.9},
             {"doc_id": "faq", "page": 1, "text": "Receipts.", "chunk_id": "c2", "score": 0.5}]
    client, stub = stubbed_client([("When?", kb_response(items))])
    response = client.retrieve(knowledgeBaseId="KB00000001", retrievalQuery={"text": "When?"},
                               retrievalConfiguration={"vectorSearchConfiguration": {"numberOfResults": 2}})
    stub.assert_no_pending_responses()
    response.pop("ResponseMetadata", None)
    path = _write(tmp_path / "br.jsonl", [{"question_id": "q1", "retrievalQuery": {"text": "When?"}, **response}])
    log = load_log(path, preset="bedrock")
    assert log.run["pages"].tolist() == [(3,), (1,)]
    assert log.run["chunk_id"].tolist() == ["c1", "c2"] and log.run["rank"].tolist() == [1, 2]


def test_ragas_question_from_user_input(tmp_path):
    from ragas.dataset_schema import SingleTurnSample

    sample = SingleTurnSample(user_input="How is the housing cleaned?", retrieved_contexts=["With a damp cloth."],
                              response="Damp cloth.")
    path = _write(tmp_path / "ragas.jsonl", [sample.model_dump(exclude_none=True)])
    log = load_log(path, preset="ragas")
    assert log.questions["question"].tolist() == ["How is the housing cleaned?"]
    assert log.run["text"].tolist() == ["With a damp cloth."]


@pytest.mark.parametrize("base, page, refused", [(1, 0, True), (1, 1, False), (0, 0, False), (0, -1, True)])
def test_a_page_below_the_base_is_refused(tmp_path, base, page, refused):
    path = _write(tmp_path / "n.jsonl", [{"question_id": "q1", "retrieved": [{"doc_id": "d", "page": page}]}])
    if refused:
        with pytest.raises(InputError, match="page"):
            load_log(path, page_base=base)
    else:
        assert load_log(path, page_base=base).run["pages"].tolist() == [(page - base + 1,)]
