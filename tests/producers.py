"""What the world writes, made in the tests by the real producers: PDFs (reportlab, page labels by pypdf's writer) and
retrieval logs written by the frameworks' own objects -- LangChain (PyPDFLoader + BM25Retriever), LlamaIndex
(SimpleDirectoryReader + BM25Retriever), Bedrock knowledge-base Retrieve responses validated by botocore's Stubber.

Fast enough for module-scoped fixtures: the sample corpus (8 documents, 83 pages) makes 8 PDFs in well under a second.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_metrics.io.corpus import load_corpus
from rag_metrics.core.text import PAGE_MARKER

_CJK_FONT = "HeiseiKakuGo-W5"


def _has_cjk(text: str) -> bool:
    return any("\u3040" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef" for c in text)


def write_pdf(path, pages: list[str], *, title: str, header: str | None = None, footer: str | None = "{title} {page}",
              labels: list[tuple[int, str, int]] | None = None, empty_pages: tuple = ()) -> Path:
    """A PDF with one page per text, drawn by reportlab: ``header`` / ``footer`` templates (``{title}``, ``{page}``,
    ``{pages}``) drawn on every page, the body wrapped to the page width. ``labels``: pypdf page-label ranges
    ``(first physical index, style, start)`` with style ``/r`` (roman) or ``/D`` (decimal). Pages listed in
    ``empty_pages`` (1-based) are drawn without any text (a scanned page)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    path = Path(path)
    if _CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))
    width, height = A4
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setTitle(title)
    n = len(pages)
    for number, text in enumerate(pages, start=1):
        font = _CJK_FONT if _has_cjk(text) or _has_cjk(title) else "Helvetica"
        if number not in empty_pages:
            fields = {"title": title, "page": number, "pages": n}
            if header:
                c.setFont(font, 9)
                c.drawString(50, height - 40, header.format(**fields))
            y = height - 70
            c.setFont(font, 10)
            for line in text.split("\n"):
                for piece in simpleSplit(line, font, 10, width - 100) or [""]:
                    c.drawString(50, y, piece)
                    y -= 13
            if footer:
                c.setFont(font, 9)
                c.drawString(50, 30, footer.format(**fields))
        c.showPage()
    c.save()
    if labels:
        from pypdf import PdfReader, PdfWriter

        writer = PdfWriter(clone_from=PdfReader(str(path)))
        bounds = [first for first, _, _ in labels] + [n]
        for (first, style, start), stop in zip(labels, bounds[1:]):
            writer.set_page_label(first, stop - 1, style=style, start=start)
        with open(path, "wb") as f:
            writer.write(f)
    return path


def corpus_pdfs(folder, *, header: str | None = None, footer: str | None = "{title} {page}", corpus=None,
                labels: dict | None = None, empty: dict | None = None) -> Path:
    """The sample corpus (or ``corpus``) as PDFs in ``folder``: one PDF page per source page, ``[p.N]`` markers
    removed, the document's title in the running header/footer templates."""
    corpus = corpus or load_corpus(sample=True)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for doc, info in corpus.documents.iterrows():
        pages = corpus.pages[corpus.pages["doc_id"] == doc].sort_values("page")["text"]
        texts = [PAGE_MARKER.sub("", t).strip("\n") for t in pages]
        write_pdf(folder / f"{doc}.pdf", texts, title=info["title"], header=header, footer=footer,
                  labels=(labels or {}).get(doc), empty_pages=(empty or {}).get(doc, ()))
    return folder


def bigrams(text: str) -> list[str]:
    """Character bigrams of each whitespace-separated word: a tokenizer that also splits Japanese (no spaces)."""
    return [w[i:i + 2] for w in text.lower().split() for i in range(max(1, len(w) - 1))]


def langchain_log(pdf_folder, golden, path, *, k: int = 5, preprocess=None) -> Path:
    """A LangChain run: PyPDFLoader pages of every PDF, a BM25Retriever over them, one record per labelled question
    with the retrieved Documents as ``doc.model_dump()`` (``metadata.page`` 0-based, ``metadata.source`` the path).
    ``preprocess``: the retriever's tokenizer (its default splits on whitespace; :func:`bigrams` reads Japanese)."""
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_community.retrievers import BM25Retriever

    docs = [d for pdf in sorted(Path(pdf_folder).glob("*.pdf")) for d in PyPDFLoader(str(pdf)).load()]
    retriever = BM25Retriever.from_documents(docs, k=k, **({"preprocess_func": preprocess} if preprocess else {}))
    with open(path, "w", encoding="utf-8") as f:
        for qid, row in golden.labelled.iterrows():
            found = retriever.invoke(row["question"])
            f.write(json.dumps({"question_id": qid, "query": row["question"],
                                "source_documents": [d.model_dump() for d in found]}, ensure_ascii=False) + "\n")
    return Path(path)


def llamaindex_log(pdf_folder, golden, path, *, k: int = 5) -> Path:
    """A LlamaIndex run: SimpleDirectoryReader (its PDF reader: one Document per page, ``page_label`` the printed
    label), a BM25Retriever over the pages, ``NodeWithScore.model_dump()`` under ``source_nodes``."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    documents = SimpleDirectoryReader(str(pdf_folder), required_exts=[".pdf"]).load_data()
    nodes = [TextNode(text=d.text, metadata=dict(d.metadata), id_=f"{d.metadata['file_name']}#{i}")
             for i, d in enumerate(documents)]
    retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=k)
    with open(path, "w", encoding="utf-8") as f:
        for qid, row in golden.labelled.iterrows():
            found = retriever.retrieve(row["question"])
            f.write(json.dumps({"question_id": qid, "query": row["question"],
                                "source_nodes": [n.model_dump() for n in found]}, ensure_ascii=False) + "\n")
    return Path(path)


def bedrock_log(pdf_folder, golden, path, *, k: int = 5, page_offset: int = 0) -> Path:
    """A Bedrock knowledge-base run: for each question, a ``Retrieve`` response built from BM25 over the PDF pages
    (``x-amz-bedrock-kb-document-page-number`` 1-based, plus ``page_offset``), returned through botocore's
    ``Stubber`` by a real ``bedrock-agent-runtime`` client (so botocore validates its shape) and logged as
    users log it: the response without ``ResponseMetadata``, with the question."""
    import boto3
    from botocore.stub import Stubber
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_community.retrievers import BM25Retriever

    docs = [d for pdf in sorted(Path(pdf_folder).glob("*.pdf")) for d in PyPDFLoader(str(pdf)).load()]
    retriever = BM25Retriever.from_documents(docs, k=k)
    client = boto3.client("bedrock-agent-runtime", region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
    with Stubber(client) as stub, open(path, "w", encoding="utf-8") as f:
        for qid, row in golden.labelled.iterrows():
            results = []
            for rank, d in enumerate(retriever.invoke(row["question"]), start=1):
                uri = f"s3://kb-bucket/docs/{Path(d.metadata['source']).name}"
                results.append({"content": {"text": d.page_content, "type": "TEXT"},
                                "location": {"type": "S3", "s3Location": {"uri": uri}},
                                "metadata": {"x-amz-bedrock-kb-source-uri": uri,
                                             "x-amz-bedrock-kb-document-page-number":
                                                 float(d.metadata["page"] + 1 + page_offset),
                                             "x-amz-bedrock-kb-chunk-id": f"{qid}-{rank}"},
                                "score": 1.0 / rank})
            request = {"knowledgeBaseId": "KB12345678", "retrievalQuery": {"text": row["question"]}}
            stub.add_response("retrieve", {"retrievalResults": results}, request)
            response = client.retrieve(**request)
            response.pop("ResponseMetadata", None)
            f.write(json.dumps({"question_id": qid, "question": row["question"], **response}, ensure_ascii=False)
                    + "\n")
    return Path(path)


def llamaindex_pages_log(pdf_folder, golden, path, *, k: int = 5) -> Path:
    """A LlamaIndex run over the PDFs' pages without its PDF reader extra: one ``TextNode`` per page read by pypdf, with
    the metadata SimpleDirectoryReader's PDF reader gives (``file_name``, ``file_path``, ``page_label`` 1-based),
    LlamaIndex's own BM25Retriever over them, ``NodeWithScore.model_dump()`` under ``source_nodes``.

    Its default English tokenizer finds no term in a Japanese question: every node scores 0.000 and the retriever
    returns one and the same list for all of them -- the pattern the report's diagnosis must name."""
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever
    from pypdf import PdfReader

    nodes = [TextNode(text=page.extract_text(), id_=f"{pdf.name}#{i}",
                      metadata={"file_name": pdf.name, "file_path": str(pdf), "page_label": str(i + 1)})
             for pdf in sorted(Path(pdf_folder).glob("*.pdf")) for i, page in enumerate(PdfReader(pdf).pages)]
    retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=k)
    with open(path, "w", encoding="utf-8") as f:
        for qid, row in golden.labelled.iterrows():
            found = retriever.retrieve(row["question"])
            f.write(json.dumps({"question_id": qid, "query": row["question"],
                                "source_nodes": [n.model_dump() for n in found]}, ensure_ascii=False) + "\n")
    return Path(path)
