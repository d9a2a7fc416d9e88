"""Documents -> pages: the ``pages.jsonl`` interchange format and the readers that produce it.

``pages.jsonl``, one page per line::

    {"doc_id": "expense_policy", "page": 3, "text": "...", "title": "Expense Policy", "genre": "policy",
     "language": "en"}

``doc_id``, ``page`` (an integer >= 1, as printed: the first page is 1) and ``text`` are required;
``title``, ``genre`` and ``language`` are optional (the same on every page of a document). A
document's pages are numbered 1, 2, 3... without gaps; ``text`` may be empty (a scanned page
with no text layer), and such pages are counted and reported, never judged as matches.

Readers, one document per file, chosen by extension (:func:`read_document`):

* ``.pdf`` -- one page per PDF page, with **pypdf** (pure Python, maintained, BSD; no system
  library to install). It extracts the text layer, Japanese included when the PDF maps its glyphs
  to Unicode (a ``ToUnicode`` map, which PDF writers emit by default). It cannot read scanned
  pages (images: no OCR -- they come out empty and are reported), nor text drawn by fonts without
  a Unicode map; reading order follows the PDF's drawing order, which for multi-column or
  vertical Japanese layouts can differ from the printed order. A page's ``language`` is the PDF's
  declared language (its catalog's ``/Lang``, ``en-US`` -> ``en``), else ``ja`` when the text is in
  Japanese script (:func:`script_language`), else empty: Latin letters alone do not tell the language.
  Any failure of the parser on a damaged file is an error naming the file (and page).
* ``.md`` / ``.markdown`` / ``.txt`` with OCR-style page markers ``[p.1]``, ``[p.2]``... -- the
  sample corpus format (optional ``---`` front matter with ``doc_id``, ``title``, ``genre``,
  ``language``); a page is the text from its marker to the next one, marker included.
* ``.md`` / ``.txt`` without markers -- plain text: one page per form feed (``\\f``), or the whole
  file as page 1.

The document ID is the file's path relative to the folder, without extension (``manual`` for
``docs/manual.pdf``; ``hr/leave`` for ``docs/hr/leave.pdf``).
"""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.core.text import KANA, KANJI, PAGE_MARKER
from rag_metrics.io.jsonl import check_file, iter_jsonl, read_lines, write_jsonl

__all__ = ["script_language", "read_document", "read_documents", "read_pdf", "read_marked_text", "read_plain_text", "read_pages_jsonl",
           "write_pages", "check_page_row", "DOCUMENT_SUFFIXES", "PAGE_FIELDS"]

DOCUMENT_SUFFIXES = (".pdf", ".md", ".markdown", ".txt")
PAGE_FIELDS = ("doc_id", "page", "text", "title", "genre", "language")
_META = ("doc_id", "title", "genre", "language")


def _page(doc_id, number, text, meta) -> dict:
    return {"doc_id": doc_id, "page": number, "text": text, **{k: meta.get(k, "") for k in ("title", "genre", "language")}}


def read_pdf(path, doc_id: str | None = None) -> list[dict]:
    """One page dict per PDF page (module docstring); an unreadable PDF is an error naming the file (and page)."""
    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - the pdf extra
        raise InputError("reading PDFs needs pypdf: pip install 'rag_metrics[pdf]'.", path=path) from None
    path = check_file(path, "a PDF file")
    doc_id = doc_id or path.stem
    with _quiet_pypdf():
        return _read_pdf(path, doc_id, PdfReader)


@contextlib.contextmanager
def _quiet_pypdf():
    """pypdf's own log lines and warnings about a damaged file (a dozen lines before the one-line error, or noise
    when it recovers) are kept off the terminal while a PDF is read: the error, when there is one, says it once."""
    logger = logging.getLogger("pypdf")
    handlers, propagate, level = logger.handlers[:], logger.propagate, logger.level
    logger.handlers, logger.propagate = [logging.NullHandler()], False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.handlers, logger.propagate, logger.level = handlers, propagate, level


def _read_pdf(path, doc_id, PdfReader) -> list[dict]:
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise InputError("the PDF is encrypted; decrypt it first (e.g. qpdf --decrypt).", path=path)
        title = ((reader.metadata or {}).get("/Title") or "") if reader.metadata is not None else ""
        declared = _declared_language(reader)
        n = len(reader.pages)
    except InputError:
        raise
    except _PDF_ERRORS as e:
        raise InputError(f"not a readable PDF ({type(e).__name__}: {_short(e)}).", path=path) from None
    pages = []
    for i in range(n):
        try:
            text = reader.pages[i].extract_text() or ""
        except _PDF_ERRORS as e:
            raise InputError(f"page {i + 1}: the text layer cannot be read ({type(e).__name__}: {_short(e)}).",
                             path=path) from None
        pages.append(_page(doc_id, i + 1, text.replace("\r\n", "\n"), {"title": str(title)}))
    if not pages:
        raise InputError("the PDF has no page.", path=path)
    language = declared or script_language("".join(p["text"] for p in pages))
    for p in pages:
        p["language"] = language
    return pages


# What pypdf raises on damaged or hostile files: its own errors, and the plain exceptions of a parser reading
# bytes it did not expect (NotImplementedError from an unsupported stream filter, deep recursion, bad arithmetic).
_PDF_ERRORS = (Exception,)


def _short(error) -> str:
    return str(error).replace("\n", " ")[:200]


def _declared_language(reader) -> str:
    """The primary subtag of the document's declared language (the catalog's ``/Lang``, e.g. ``en-US`` -> ``en``),
    or ``""``."""
    try:
        lang = reader.trailer["/Root"].get("/Lang")
    except Exception:  # a damaged catalog: no declared language
        return ""
    lang = str(lang or "").strip()
    primary = lang.split("-")[0].split("_")[0].lower()
    return primary if primary.isascii() and primary.isalpha() and 2 <= len(primary) <= 3 else ""


_KANA = re.compile(f"[{KANA}]")
_KANJI = re.compile(f"[{KANJI}]")


def script_language(text: str) -> str:
    """``ja`` when the text is written in Japanese script (kana, or kanji with kana beside), else ``""`` (unknown:
    Latin letters alone do not tell English from French, so no language is claimed)."""
    kana = len(_KANA.findall(text))
    cjk = len(_KANJI.findall(text))
    letters = sum(ch.isalpha() for ch in text)
    return "ja" if letters and kana and (kana + cjk) / letters >= 0.3 else ""


def _front_matter(lines: list[str], path) -> tuple[dict, int]:
    """``(meta, index of the first body line)``; no front matter: ``({}, 0)``."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise InputError("front matter is not closed by '---'.", path=path, line=1) from None
    meta = {}
    for i in range(1, end):
        key, sep, value = lines[i].partition(":")
        if not sep:
            raise InputError(f"expected 'key: value' in the front matter, got {lines[i]!r}.", path=path, line=i + 1)
        meta[key.strip()] = value.strip()
    return meta, end + 1


def read_marked_text(path, doc_id: str | None = None) -> list[dict]:
    """Pages of a text document with ``[p.N]`` markers (the sample corpus format; module docstring)."""
    path = check_file(path, "a text document")
    lines = read_lines(path, "a text document")
    meta, body_start = _front_matter(lines, path)
    doc_id = doc_id or path.stem
    if meta.get("doc_id") and meta["doc_id"] != doc_id:
        raise InputError(f"doc_id {meta['doc_id']!r} differs from the file's document ID {doc_id!r}.", path=path,
                         line=2)
    text = "\n".join(lines[body_start:])
    markers = list(PAGE_MARKER.finditer(text))
    body_line = body_start + 1
    if not markers or text[: markers[0].start()].strip():
        raise InputError("the body must start with the page marker [p.1].", path=path, line=body_line)
    pages = []
    for n, m in enumerate(markers, start=1):
        if int(m.group(1)) != n:
            raise InputError(f"page marker {m.group()} out of sequence; expected [p.{n}].", path=path,
                             line=body_line + text[: m.start()].count("\n"))
        stop = markers[n].start() if n < len(markers) else len(text)
        pages.append(_page(doc_id, n, text[m.start():stop], meta))
    return pages


def read_plain_text(path, doc_id: str | None = None) -> list[dict]:
    """Pages of a plain text file: split at form feeds, or the whole file as page 1."""
    path = check_file(path, "a text document")
    text = "\n".join(read_lines(path, "a text document"))
    parts = text.split("\f")
    if len(parts) > 1 and not parts[-1].strip():
        parts = parts[:-1]  # a final form feed ends the last page
    doc_id = doc_id or path.stem
    return [_page(doc_id, n, part, {}) for n, part in enumerate(parts, start=1)]


def read_document(path, doc_id: str | None = None) -> list[dict]:
    """The pages of one document file, by extension (module docstring)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return read_pdf(path, doc_id)
    if suffix in (".md", ".markdown", ".txt"):
        head = "\n".join(read_lines(check_file(path, "a text document"), "a text document"))
        if PAGE_MARKER.search(head):
            return read_marked_text(path, doc_id)
        return read_plain_text(path, doc_id)
    check_choice(suffix, DOCUMENT_SUFFIXES, "document type", what="unknown", path=path)


def read_documents(folder) -> list[dict]:
    """Pages of every document under ``folder`` (recursively; hidden files skipped), in document ID order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("not a folder; expected a folder of documents "
                         f"({', '.join(DOCUMENT_SUFFIXES)}).", path=folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not files:
        raise InputError(f"no document found; expected files ending in {', '.join(DOCUMENT_SUFFIXES)}.", path=folder)
    pages, seen = [], {}
    for file in files:
        doc_id = file.relative_to(folder).with_suffix("").as_posix()
        if doc_id in seen:
            raise InputError(f"document ID {doc_id!r} is also {seen[doc_id].name}: two files differ only by extension.",
                             path=file)
        seen[doc_id] = file
        pages += read_document(file, doc_id)
    return pages


def check_page_row(row: dict, path, line: int, seen: dict) -> dict:
    """One page line validated: ``doc_id`` a non-empty string, ``page`` an integer >= 1, ``text`` a string, the
    optional fields strings, and ``(doc_id, page)`` not in ``seen`` (which records it, with the line)."""
    for field in ("doc_id", "page", "text"):
        if field not in row:
            raise InputError(f"missing field {field!r}; expected doc_id, page, text.", path=path, line=line, field=field)
    doc, page, text = row["doc_id"], row["page"], row["text"]
    if not isinstance(doc, str) or not doc.strip():
        raise InputError(f"doc_id {doc!r} is not a non-empty string.", path=path, line=line, field="doc_id")
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise InputError(f"page {page!r} of {doc!r} is not an integer >= 1 (pages are numbered from 1).", path=path,
                         line=line, field="page")
    if not isinstance(text, str):
        raise InputError(f"text of {doc!r} page {page} is not a string (got {type(text).__name__}).", path=path,
                         line=line, field="text")
    if (doc, page) in seen:
        raise InputError(f"page {page} of {doc!r} is listed twice (also at line {seen[doc, page]}).", path=path,
                         line=line, field="page")
    seen[doc, page] = line
    info = {k: row.get(k) or "" for k in ("title", "genre", "language")}
    for k, v in info.items():
        if not isinstance(v, str):
            raise InputError(f"{k} {v!r} is not a string.", path=path, line=line, field=k)
    return {"doc_id": doc, "page": page, "text": text, **info}


def read_pages_jsonl(path) -> list[dict]:
    """Validated pages of a ``pages.jsonl`` file; errors name the line and the field."""
    pages, where, meta = [], {}, {}
    for line, row in iter_jsonl(path, "pages (JSON lines: doc_id, page, text)"):
        page_row = check_page_row(row, path, line, where)
        doc, page, text = page_row["doc_id"], page_row["page"], page_row["text"]
        info = {k: page_row[k] for k in ("title", "genre", "language")}
        for k, v in info.items():
            if v and meta.setdefault((doc, k), v) != v:
                raise InputError(f"{k} {v!r} of {doc!r} differs from its earlier pages ({meta[doc, k]!r}).", path=path,
                                 line=line, field=k)
        pages.append({"doc_id": doc, "page": page, "text": text, **info, "_line": line})
    for doc in dict.fromkeys(p["doc_id"] for p in pages):
        numbers = sorted(p["page"] for p in pages if p["doc_id"] == doc)
        if numbers != list(range(1, len(numbers) + 1)):
            missing = sorted(set(range(1, numbers[-1] + 1)) - set(numbers))
            raise InputError(f"document {doc!r}: pages must be numbered 1..n without gaps; missing {missing[:5]}.",
                             path=path, line=where[doc, numbers[-1]], field="page")
    for p in pages:  # document-level fields: the first non-empty value holds for every page
        for k in ("title", "genre", "language"):
            p[k] = meta.get((p["doc_id"], k), "")
        del p["_line"]
    order = {doc: i for i, doc in enumerate(dict.fromkeys(p["doc_id"] for p in pages))}
    return sorted(pages, key=lambda p: (order[p["doc_id"]], p["page"]))


def write_pages(pages: Iterable[dict], path) -> Path:
    """Write pages as ``pages.jsonl`` (empty optional fields left out)."""
    rows = ({k: p[k] for k in PAGE_FIELDS if k in ("doc_id", "page", "text") or p.get(k)} for p in pages)
    return write_jsonl(rows, path)
