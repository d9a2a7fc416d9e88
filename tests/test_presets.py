"""Logs as the frameworks write them: every preset read from logs that the framework's own objects produced
(LangChain Documents and dumpd, langchain-aws's knowledge-base retriever through botocore's Stubber, LlamaIndex
nodes, ragas datasets, Bedrock Retrieve responses), and one logical log in every shape giving the same numbers."""

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir
from rag_metrics.io.log_presets import detect_item_preset, native_items, parse_run_spec
from rag_metrics.io.logs import load_log
from rag_metrics.retrieval.run_retriever import run_retriever

EXAMPLES = data_dir() / "examples"


# ---- the logical log: the sample BM25 run, one page per item ---------------------------------------------------

@pytest.fixture(scope="module")
def logical():
    """question_id, question and ranked items (doc_id, page, chunk_id, text, score) of the sample BM25 run."""
    rows = [json.loads(line) for line in (EXAMPLES / "bm25_c400o100.jsonl").read_text(encoding="utf-8").splitlines()]
    return [{"question_id": r["question_id"], "question": r["question"],
             "items": [{"doc_id": i["doc_id"], "page": i["pages"][0], "chunk_id": i["chunk_id"], "text": i["text"],
                        "score": i["score"]} for i in r["retrieved"]]} for r in rows]


def write(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# ---- producers: the frameworks' own objects ---------------------------------------------------------------------

def lc_documents(items):
    from langchain_core.documents import Document

    return [Document(page_content=i["text"], id=i["chunk_id"],
                     metadata={"source": f"/srv/docs/{i['doc_id']}.md", "page": i["page"] - 1, "score": i["score"]})
            for i in items]


def kb_response(items):
    """A bedrock-agent-runtime Retrieve response for these items (what the service returns)."""
    return {"retrievalResults": [
        {"content": {"text": i["text"], "type": "TEXT"},
         "location": {"type": "S3", "s3Location": {"uri": f"s3://kb-bucket/docs/{i['doc_id']}.md"}},
         "metadata": {"x-amz-bedrock-kb-source-uri": f"s3://kb-bucket/docs/{i['doc_id']}.md",
                      "x-amz-bedrock-kb-document-page-number": float(i["page"]),
                      "x-amz-bedrock-kb-chunk-id": i["chunk_id"], "x-amz-bedrock-kb-data-source-id": "DS0000001"},
         "score": i["score"]} for i in items]}


def stubbed_client(responses):
    """A real bedrock-agent-runtime client whose Retrieve calls are answered by botocore's Stubber, in order."""
    import boto3
    from botocore.stub import ANY, Stubber

    client = boto3.client("bedrock-agent-runtime", region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    stub = Stubber(client)
    for question, response in responses:
        stub.add_response("retrieve", response, {"knowledgeBaseId": "KB00000001", "retrievalQuery": {"text": question},
                                                 "retrievalConfiguration": ANY})
    stub.activate()
    return client, stub


def kb_documents(logical):
    """langchain-aws Documents, made by its AmazonKnowledgeBasesRetriever over the stubbed service."""
    from langchain_aws.retrievers import AmazonKnowledgeBasesRetriever

    client, stub = stubbed_client([(r["question"], kb_response(r["items"])) for r in logical])
    retriever = AmazonKnowledgeBasesRetriever(knowledge_base_id="KB00000001", client=client,
                                              retrieval_config={"vectorSearchConfiguration": {"numberOfResults": 5}})
    docs = [retriever.invoke(r["question"]) for r in logical]
    stub.assert_no_pending_responses()
    return docs


def li_nodes(items):
    from llama_index.core.schema import NodeWithScore, TextNode

    return [NodeWithScore(node=TextNode(text=i["text"], id_=i["chunk_id"],
                                        metadata={"file_name": f"{i['doc_id']}.md", "page_label": str(i["page"])}),
                          score=i["score"]) for i in items]


def ragas_dataset(logical, ids: bool):
    from ragas import EvaluationDataset
    from ragas.dataset_schema import SingleTurnSample

    return EvaluationDataset(samples=[SingleTurnSample(
        user_input=r["question"], retrieved_contexts=[i["text"] for i in r["items"]],
        **({"retrieved_context_ids": [i["doc_id"] for i in r["items"]]} if ids else {}), response="an answer")
        for r in logical])


def shapes(logical, tmp):
    """Every shape of the logical log: name -> (log spec or path, load_log keyword arguments)."""
    from langchain_core.load import dumpd

    out = {}
    out["native"] = (write(tmp / "native.jsonl", [
        {"question_id": r["question_id"], "question": r["question"], "retrieved": r["items"]} for r in logical]), {})
    out["langchain model_dump (RetrievalQA output, no IDs)"] = (write(tmp / "lc_dump.jsonl", [
        {"query": r["question"], "result": "an answer",
         "source_documents": [d.model_dump() for d in lc_documents(r["items"])]} for r in logical]),
        {"preset": "langchain"})
    out["langchain dumpd (retrieval chain output)"] = (write(tmp / "lc_dumpd.jsonl", [
        {"question_id": r["question_id"], **dumpd({"input": r["question"], "context": lc_documents(r["items"])})}
        for r in logical]), {"preset": "langchain"})
    kb = kb_documents(logical)
    out["langchain-aws model_dump"] = (write(tmp / "kb_dump.jsonl", [
        {"question_id": r["question_id"], "query": r["question"], "source_documents": [d.model_dump() for d in docs]}
        for r, docs in zip(logical, kb)]), {"preset": "langchain-aws"})
    out["langchain-aws dumpd, per-run preset"] = (
        f"langchain-aws:{write(tmp / 'kb_dumpd.jsonl', [{'question_id': r['question_id'], 'query': r['question'], 'source_documents': dumpd(docs)} for r, docs in zip(logical, kb)])}",
        {"preset": "native"})  # the run's own preset wins over the command's
    nodes = [li_nodes(r["items"]) for r in logical]
    out["llamaindex model_dump"] = (write(tmp / "li_dump.jsonl", [
        {"question_id": r["question_id"], "query": r["question"], "source_nodes": [n.model_dump() for n in ns]}
        for r, ns in zip(logical, nodes)]), {"preset": "llamaindex"})
    out["llamaindex to_dict"] = (write(tmp / "li_dict.jsonl", [
        {"question_id": r["question_id"], "query": r["question"], "source_nodes": [n.to_dict() for n in ns]}
        for r, ns in zip(logical, nodes)]), {"preset": "llamaindex"})
    client, stub = stubbed_client([(r["question"], kb_response(r["items"])) for r in logical])
    out["bedrock Retrieve response"] = (write(tmp / "bedrock.jsonl", [
        {"question_id": r["question_id"], "retrievalQuery": {"text": r["question"]},
         **client.retrieve(knowledgeBaseId="KB00000001", retrievalQuery={"text": r["question"]},
                           retrievalConfiguration={"vectorSearchConfiguration": {"numberOfResults": 5}})}
        for r in logical]), {"preset": "bedrock"})
    custom = write(tmp / "custom.jsonl", [
        {"qid": r["question_id"], "hits": [{"src": {"name": f"{i['doc_id']}.md"}, "p": i["page"] - 1,
                                            "body": i["text"], "s": i["score"], "cid": i["chunk_id"]}
                                           for i in r["items"]]} for r in logical])
    out["field mapping, per-run"] = (
        f"(question_id=qid,items=hits,doc_id=src.name,page=p,text=body,score=s,chunk_id=cid,page_base=0):{custom}", {})
    ragas = tmp / "ragas_ids.jsonl"
    ragas_dataset(logical, ids=True).to_jsonl(str(ragas))
    out["ragas to_jsonl, --field doc_id=retrieved_context_ids"] = (ragas, {"preset": "ragas", "fields": {
        "doc_id": "retrieved_context_ids"}})
    pandas_rows = tmp / "ragas_pandas.jsonl"
    pandas_rows.write_text(ragas_dataset(logical, ids=True).to_pandas().to_json(orient="records", lines=True),
                           encoding="utf-8")
    out["ragas to_pandas().to_json, per-run mapping"] = (f"ragas(doc_id=retrieved_context_ids):{pandas_rows}", {})
    text_only = tmp / "ragas_text_only.jsonl"
    ragas_dataset(logical, ids=False).to_jsonl(str(text_only))
    out["ragas to_jsonl, text only"] = (text_only, {"preset": "ragas"})
    return out


@pytest.fixture(scope="module")
def all_shapes(logical, tmp_path_factory):
    return shapes(logical, tmp_path_factory.mktemp("shapes"))


@pytest.fixture(scope="module")
def reference(golden, corpus, all_shapes):
    path, kwargs = all_shapes["native"]
    return evaluate_log(golden, load_log(path, **kwargs), corpus)


@pytest.fixture(scope="module")
def spanned(golden, corpus):
    """The sample run as written, every item with all the pages its text spans (the shapes above log the first)."""
    return evaluate_log(golden, load_log(EXAMPLES / "bm25_c400o100.jsonl"), corpus)


SHAPES = ["native", "langchain model_dump (RetrievalQA output, no IDs)", "langchain dumpd (retrieval chain output)", "langchain-aws model_dump",
          "langchain-aws dumpd, per-run preset", "llamaindex model_dump", "llamaindex to_dict",
          "bedrock Retrieve response", "field mapping, per-run",
          "ragas to_jsonl, --field doc_id=retrieved_context_ids", "ragas to_pandas().to_json, per-run mapping",
          "ragas to_jsonl, text only"]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_gives_the_native_numbers(golden, corpus, all_shapes, reference, spanned, logical, shape):
    """The differential test: one logical log in every shape; each judge that applies gives the same per-question
    figures as the native log, and the document-level evaluation is the same. LlamaIndex logs a printed page label,
    never a page: its items are placed by their text, on every page the text spans, so its page judge equals the
    run's as written with each item's whole span."""
    path, kwargs = all_shapes[shape]
    log = load_log(path, golden=golden, corpus=corpus, **kwargs)  # matched when read
    assert log.documents["unmatched_items"] == 0 and log.unknown_questions == []
    result = evaluate_log(golden, log, corpus)
    placed = shape.startswith("llamaindex") or shape.endswith("text only")  # pages from where the text lies
    expected_judges = ["document", "marker", "overlap"] if shape.startswith("ragas") and not placed else \
        ["document", "page", "marker", "overlap"]
    assert list(result.judges) == expected_judges
    for judge in expected_judges:
        expected = spanned if judge == "page" and placed else reference
        pd.testing.assert_frame_equal(result.pages[judge].per_question, expected.pages[judge].per_question,
                                      obj=f"{shape}: {judge} judge")
    if placed:  # every text found on its document's pages, within the span the run logged
        assert set(result.run["placed_by"]) == {"exact page"}
        assert result.run["doc_id"].tolist() == spanned.run["doc_id"].tolist()
        assert all(set(located) <= set(logged) and located for located, logged in
                   zip(result.run["pages"], spanned.run["pages"]))
    pd.testing.assert_frame_equal(result.document.per_question, reference.document.per_question)
    assert result.primary == "overlap" and result.evaluation.summary.loc["hit@5", "mean"] > 0.9
    if not shape.startswith("ragas"):  # ragas rows hold no score
        assert result.run["score"].tolist() == reference.run["score"].tolist()
    assert sorted(log.question_map.values()) == sorted(r["question_id"] for r in logical)  # by ID or by text


def test_text_only_ragas_rows_need_the_pages(golden, corpus, logical, tmp_path):
    """Contexts as text alone (no IDs): each text must be located on the pages; without them it is an error
    saying what to give."""
    path = tmp_path / "ragas.jsonl"
    ragas_dataset(logical, ids=False).to_jsonl(str(path))
    log = load_log(path, preset="ragas")
    assert log.run["doc_id"].isna().all() and len(log.text_only) == len(log.run) == 5 * len(logical)
    with pytest.raises(InputError, match=r"ragas.jsonl:1: text-only log: give --pages so each text is located"):
        evaluate_log(golden, log, None)


# ---- each preset on its framework's own output ------------------------------------------------------------------

def test_langchain_dumpd_id_is_a_class_path_not_a_document(tmp_path, logical):
    from langchain_core.load import dumpd

    items = logical[0]["items"][:2]
    path = write(tmp_path / "lc.jsonl", [{"question_id": "q001", "query": "Q?",
                                          "source_documents": [dumpd(d) for d in lc_documents(items)]}])
    run = load_log(path, preset="langchain").run
    assert run["chunk_id"].tolist() == [i["chunk_id"] for i in items]  # the Document's id, not its class path
    assert run["doc_id"].tolist() == [f"/srv/docs/{i['doc_id']}.md" for i in items]
    assert run["pages"].tolist() == [(i["page"],) for i in items]  # metadata.page is 0-based


def test_langchain_aws_documents_are_read_and_recognised(tmp_path, logical, capsys):
    docs = kb_documents(logical[:1])[0]
    meta = docs[0].metadata
    assert "source" not in meta and meta["source_metadata"]["x-amz-bedrock-kb-document-page-number"] == \
        float(logical[0]["items"][0]["page"])
    path = write(tmp_path / "kb.jsonl", [{"question_id": "q001", "query": "Q?",
                                          "source_documents": [d.model_dump() for d in docs]}])
    run = load_log(path, preset="langchain-aws").run
    assert run["doc_id"].iloc[0] == f"s3://kb-bucket/docs/{logical[0]['items'][0]['doc_id']}.md"
    assert run["pages"].iloc[0] == (logical[0]["items"][0]["page"],)
    assert run["chunk_id"].iloc[0] == logical[0]["items"][0]["chunk_id"] and run["score"].iloc[0] > 0
    # read with the plain langchain preset: the error says which preset reads it
    with pytest.raises(InputError, match=r"kb.jsonl:1: .*has no document \(field metadata.source\).*--preset "
                                         r"langchain-aws"):
        load_log(path, preset="langchain")


def test_ragas_rows_as_ragas_writes_them(tmp_path, logical):
    path = tmp_path / "ragas.jsonl"
    ragas_dataset(logical[:2], ids=True).to_jsonl(str(path))
    log = load_log(path, preset="ragas")  # retrieved_context_ids are chunk IDs by default
    assert log.run["chunk_id"].tolist()[:2] == [i["doc_id"] for i in logical[0]["items"][:2]]
    assert log.run["doc_id"].isna().all() and log.questions["question"].tolist()[0] == logical[0]["question"]
    as_docs = load_log(path, preset="ragas", fields={"doc_id": "retrieved_context_ids"})
    assert as_docs.run["doc_id"].tolist()[:2] == [i["doc_id"] for i in logical[0]["items"][:2]]
    assert as_docs.run["chunk_id"].isna().all() and as_docs.run["text"].notna().all()


def test_ids_as_chunks_without_gold_chunks_say_what_to_type(golden, tmp_path, logical):
    """ragas context IDs read as chunk IDs against a golden set without gold chunks: placed by text when the pages
    are given, else the error names the mapping to type."""
    path = tmp_path / "ragas.jsonl"
    ragas_dataset(logical[:3], ids=True).to_jsonl(str(path))
    with pytest.raises(InputError, match="text-only log: give --pages"):
        evaluate_log(golden, load_log(path, preset="ragas", golden=golden), None)


# ---- per-run shapes ---------------------------------------------------------------------------------------------

def test_run_specs():
    spec = parse_run_spec("langchain:runs/lc.jsonl")
    assert (spec.path, spec.preset, spec.own) == ("runs/lc.jsonl", "langchain", True)
    spec = parse_run_spec("(doc_id=meta.src, page=meta.p, page_base=0):old.jsonl")
    assert (spec.preset, spec.fields, spec.page_base) == ("native", {"doc_id": "meta.src", "page": "meta.p"}, 0)
    assert str(spec) == "native(doc_id=meta.src,page=meta.p,page_base=0):old.jsonl"
    assert parse_run_spec(str(spec)) == spec
    assert not parse_run_spec("runs/plain.jsonl").own and not parse_run_spec("C:/logs/x.jsonl").own
    with pytest.raises(InputError, match="option 'colour=x'; expected FIELD=PATH with FIELD one of"):
        parse_run_spec("native(colour=x):log.jsonl")
    with pytest.raises(InputError, match="page_base '2'; expected 0 or 1"):
        parse_run_spec("native(page_base=2):log.jsonl")


def test_a_file_named_like_a_spec_is_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "langchain:odd.jsonl").write_text('{"question_id": "q1", "retrieved": [{"doc_id": "d"}]}\n')
    assert not parse_run_spec("langchain:odd.jsonl").own
    assert load_log("langchain:odd.jsonl").run["doc_id"].tolist() == ["d"]
    (tmp_path / "real.jsonl").write_text("{}\n")
    with pytest.raises(InputError, match="unknown log preset 'langchan'"):
        parse_run_spec("langchan:real.jsonl")


def test_one_report_mixes_native_and_langchain_logs(tmp_path, warm_kernels):
    """--run LOG (native, the command's --preset) and --run langchain:LOG in one experiment report."""
    reports = tmp_path / "reports"
    code = main(["report", "--experiment", "mixed", "--golden", str(data_dir() / "golden.jsonl"), "--pages",
                 str(data_dir() / "corpus"), "--reports-dir", str(reports), "--run", str(EXAMPLES / "bm25_c300o50.jsonl"),
                 "--run", f"langchain:{EXAMPLES / 'langchain_bm25_c400o100.jsonl'}"])
    assert code == 0
    (run_dir,) = [p for p in (reports / "mixed").iterdir() if not p.name.startswith(".") and p.name != "history"]
    page = (run_dir / "experiment.html").read_text(encoding="utf-8")
    assert "Run <strong>langchain_bm25_c400o100</strong> (newest) against <strong>bm25_c300o50</strong>" in page
    params = json.loads((run_dir / "run.json").read_text())["parameters"]
    assert params["runs"][1].startswith("langchain:/") and params["preset"] == "native"
    names = sorted(p.stem.split("_", 1)[1] for p in (reports / "mixed" / "history").glob("*.json"))
    assert names == ["bm25_c300o50", "langchain_bm25_c400o100"]


# ---- what `run` accepts from a retriever ------------------------------------------------------------------------

def test_native_items_from_framework_objects(logical):
    items = logical[0]["items"][:2]
    expected = [{"doc_id": f"/srv/docs/{i['doc_id']}.md", "page": i["page"], "chunk_id": i["chunk_id"],
                 "text": i["text"], "score": i["score"]} for i in items]
    docs = lc_documents(items)
    assert native_items(docs) == expected
    from langchain_core.load import dumpd

    assert native_items([dumpd(d) for d in docs]) == expected
    pairs = native_items([(d, 0.25) for d in docs])  # similarity_search_with_score
    assert [p["score"] for p in pairs] == [0.25, 0.25]
    nodes = native_items(li_nodes(items))
    assert [(n["doc_id"], n["page_label"], n["chunk_id"]) for n in nodes] == \
        [(f"{i['doc_id']}.md", str(i["page"]), i["chunk_id"]) for i in items]  # a printed label, never a page
    assert not any("page" in n for n in nodes)
    assert [detect_item_preset(d.model_dump()) for d in docs] == ["langchain", "langchain"]
    assert detect_item_preset(kb_documents(logical[:1])[0][0].model_dump()) == "langchain-aws"


@pytest.mark.parametrize("kind", ["langchain", "llamaindex", "numpy"])
def test_run_accepts_framework_objects_and_gives_the_native_numbers(golden, corpus, logical, reference, spanned,
                                                                    tmp_path, kind):
    by_question = {r["question"]: r["items"] for r in logical}

    def search(question, k):
        items = by_question[question][:k]
        if kind == "langchain":
            return lc_documents(items)
        if kind == "llamaindex":
            return li_nodes(items)
        return [{"doc_id": i["doc_id"], "page": np.int64(i["page"]), "chunk_id": i["chunk_id"], "text": i["text"],
                 "score": np.float64(i["score"])} for i in items]

    out = tmp_path / f"{kind}.jsonl"
    summary = run_retriever(search, golden, 5, out, settings={"retriever": kind}, progress=False, retries=0)
    assert summary["failed"] == []
    result = evaluate_log(golden, load_log(out, golden=golden, corpus=corpus), corpus)
    for judge in ("document", "page", "marker", "overlap"):  # LlamaIndex's items are placed on the pages they span
        expected = spanned if judge == "page" and kind == "llamaindex" else reference
        pd.testing.assert_frame_equal(result.pages[judge].per_question, expected.pages[judge].per_question)


def test_cli_run_with_langchain_documents(golden, tmp_path, monkeypatch, capsys):
    (tmp_path / "lc_search.py").write_text(textwrap.dedent("""
        from langchain_core.documents import Document

        def search(question, k):
            return [Document(page_content="Claims are due within 30 days.",
                             metadata={"source": "/srv/docs/expense_policy.md", "page": 2})][:k]
    """))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--retriever", "lc_search:search", "--golden", str(data_dir() / "golden.jsonl"),
                 "--experiment", "lc", "-k", "3", "--no-progress"]) == 0
    (log,) = (tmp_path / "runs" / "lc").glob("*.jsonl")
    first = json.loads(log.read_text().splitlines()[0])
    assert first["retrieved"] == [{"doc_id": "/srv/docs/expense_policy.md", "page": 3,
                                   "text": "Claims are due within 30 days."}]


# ---- at the edges, by value ----------------------------------------------------------
# Each preset's paths by value, from objects the frameworks make: the question of a LangChain chain that logs no
# ID, PyPDFLoader's 0-based pages, LlamaIndex's answer and file name beside a source-document ID, Bedrock's page
# numbers, ragas' user_input; ranks from 1; a page below the log's base refused.


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
