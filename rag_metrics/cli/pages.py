"""`rag-metrics pages`: a folder of documents -> pages.jsonl (:mod:`rag_metrics.io.pages`)."""

from __future__ import annotations

from rag_metrics.cli import options
from rag_metrics.core.files import Output

import os


def add(sub) -> None:
    pg = sub.add_parser("pages", help="convert a folder of documents (PDF, Markdown, text) to pages.jsonl",
                        description="One line per page: doc_id, page (from 1), text, and title/genre/language when "
                                    "known. Formats: help(rag_metrics.io.pages).")
    pg.add_argument("docs", help="a folder of documents (recursively), or one document file")
    pg.add_argument("-o", "--output", required=True, metavar="PAGES.jsonl", help="where to write pages.jsonl")
    options.files(pg, reads=("docs",), writes=(Output("-o", None),))


def run(args) -> int:
    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.io.pages import read_document, read_documents, write_pages

    source = args.docs
    pages = read_documents(source) if os.path.isdir(source) else read_document(source)
    corpus = corpus_from_pages(pages, source=source)
    write_pages(pages, args.output)
    empty = corpus.empty_pages
    print(f"wrote {args.output}: {len(corpus.documents)} documents, {len(pages)} pages")
    if empty:
        shown = ", ".join(f"{d} p.{p}" for d, p in empty[:10]) + (" ..." if len(empty) > 10 else "")
        print(f"{len(empty)} page(s) without text (scanned images need OCR first): {shown}")
    return 0
