"""Pages -> a seeded sample of text-rich pages to write questions from.

The rule (:func:`sample_pages`):

1. A page's **body** is its text without page markers (``[p.N]``) and Markdown heading lines
   (``# ...``), NFKC-normalized with whitespace collapsed. Its **size** is the body's length in
   characters, a kana/kanji character counting as :data:`CJK_WEIGHT` (3) -- a Japanese character
   carries about as much as three Latin ones (the sample corpus: English pages ~350 characters,
   Japanese pages ~100 for the same amount of content).
2. A page is **eligible** when its size is at least ``min_chars``: title pages, blank or scanned
   pages (no text layer) and pages holding only a heading or a caption are never drawn.
3. In every document, ``per_document`` eligible pages are drawn **without replacement, with
   probability proportional to size** (numpy's ``Generator.choice``), from a random generator
   seeded by ``(seed, the document's ID)``: the same seed gives the same pages, and adding or
   removing a document does not change the pages drawn from the others.
4. A document with fewer eligible pages than ``per_document`` gives all it has and is reported in
   :attr:`PageSample.shortfalls` -- never silently.

The sample is written as JSON lines (``sample.jsonl``): the page fields of ``pages.jsonl``
(``doc_id, page, text, title, genre, language``) plus ``size`` and the sampling settings
(``seed, per_document, min_chars``), so the later steps need nothing else.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.core.fingerprint import digest
from rag_metrics.io.jsonl import iter_jsonl, write_jsonl
from rag_metrics.io.pages import check_page_row
from rag_metrics.core.text import cjk_count, normalize

__all__ = ["PageSample", "sample_pages", "page_size", "body_text", "read_sample", "write_sample", "CJK_WEIGHT",
           "MIN_CHARS"]

CJK_WEIGHT = 3
"""How many Latin characters a kana/kanji character counts as in a page's size."""
MIN_CHARS = 200
"""Default eligibility threshold (weighted characters of body text)."""

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.M)


def body_text(text: str) -> str:
    """The page text without page markers and Markdown heading lines, normalized (module docstring)."""
    return normalize(_HEADING.sub(" ", unicodedata.normalize("NFKC", text)))


def page_size(text: str) -> int:
    """Weighted characters of body text: ``len(body) + (CJK_WEIGHT - 1) * (kana/kanji in body)``."""
    body = body_text(text)
    return len(body) + (CJK_WEIGHT - 1) * cjk_count(body)


@dataclass(frozen=True)
class PageSample:
    """The sampled pages and what could not be sampled.

    ``pages``: doc_id, page, text, title, genre, language, size -- in document order, then page.
    ``shortfalls``: doc_id, pages, eligible, wanted, drawn -- documents with fewer eligible pages
    than asked for. ``settings``: seed, per_document, min_chars, and the source's fingerprint.
    """

    pages: pd.DataFrame
    shortfalls: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.pages)

    def records(self) -> list[dict]:
        """The sample as ``sample.jsonl`` rows."""
        extra = {k: self.settings[k] for k in ("seed", "per_document", "min_chars")}
        return [{**{k: row[k] for k in ("doc_id", "page", "text", "title", "genre", "language")},
                 "size": int(row["size"]), **extra} for row in self.pages.to_dict("records")]

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        return summary(f"{len(self.pages)} pages from {self.pages['doc_id'].nunique()} documents "
                       f"(seed {self.settings['seed']}).", (None, self.pages.drop(columns="text"), {"index": False}),
                       ("Documents with too few eligible pages:", None if self.shortfalls.empty else self.shortfalls,
                        {"index": False}))


def _page_table(pages) -> pd.DataFrame:
    """Pages from a Corpus, a list of page dicts, a DataFrame, or a path (folder, pages.jsonl, document)."""
    from rag_metrics.io.corpus import Corpus, load_corpus

    if isinstance(pages, (str, Path)):
        pages = load_corpus(pages)
    if isinstance(pages, Corpus):
        table = pages.pages
    elif isinstance(pages, pd.DataFrame):
        table = pages
    else:
        table = pd.DataFrame(list(pages))
    if table.empty:
        raise InputError("no page to sample from; expected pages with doc_id, page, text.")
    missing = [c for c in ("doc_id", "page", "text") if c not in table.columns]
    if missing:
        raise InputError(f"pages: missing column(s) {missing}; expected doc_id, page, text.")
    table = table.copy()
    for col in ("title", "genre", "language"):
        if col not in table.columns:
            table[col] = ""
        table[col] = table[col].fillna("").astype(str)
    return table[["doc_id", "page", "text", "title", "genre", "language"]].reset_index(drop=True)


def _document_seed(seed: int, doc_id: str) -> list[int]:
    return [seed, int.from_bytes(hashlib.sha256(str(doc_id).encode("utf-8")).digest()[:8], "big")]


def sample_pages(pages, per_document: int = 3, *, min_chars: int = MIN_CHARS, seed: int = 0) -> PageSample:
    """Draw ``per_document`` text-rich pages from every document (the rule is in the module docstring).

    Parameters
    ----------
    pages : Corpus, list of page dicts, DataFrame, or a path (folder of documents, ``pages.jsonl``, a document)
    per_document : int >= 1
    min_chars : int >= 0, the eligibility threshold in weighted characters of body text
    seed : int >= 0

    Returns
    -------
    PageSample
        ``pages`` (never the same page twice), ``shortfalls`` (documents with fewer eligible pages
        than ``per_document``), ``settings``.
    """
    per_document = check_int(per_document, "per_document", func="sample_pages")
    min_chars = check_int(min_chars, "min_chars", low=0, func="sample_pages")
    seed = check_int(seed, "seed", low=0, func="sample_pages")
    table = _page_table(pages)
    table["size"] = [page_size(t) for t in table["text"]]
    chosen, short = [], []
    for doc_id, group in table.groupby("doc_id", sort=False):
        eligible = group[(group["size"] >= max(min_chars, 1))]
        take = min(per_document, len(eligible))
        if take:
            rng = np.random.default_rng(_document_seed(seed, doc_id))
            weights = eligible["size"].to_numpy(dtype=float)
            picked = rng.choice(len(eligible), size=take, replace=False, p=weights / weights.sum())
            chosen.append(eligible.iloc[np.sort(picked)])
        if take < per_document:
            short.append({"doc_id": doc_id, "pages": len(group), "eligible": len(eligible), "wanted": per_document,
                          "drawn": take})
    columns = ["doc_id", "page", "text", "title", "genre", "language", "size"]
    sampled = pd.concat(chosen, ignore_index=True)[columns] if chosen else pd.DataFrame(columns=columns)
    if sampled.empty:
        raise InputError(f"no page has at least {min_chars} weighted characters of body text; lower min_chars "
                         f"(the largest page has {int(table['size'].max())}).")
    settings = {"seed": seed, "per_document": per_document, "min_chars": min_chars,
                "pages_fingerprint": digest(table[["doc_id", "page", "text"]])}
    return PageSample(sampled, pd.DataFrame(short, columns=["doc_id", "pages", "eligible", "wanted", "drawn"]),
                      settings)


def write_sample(sample: PageSample, path) -> Path:
    """Write ``sample.jsonl`` (module docstring)."""
    return write_jsonl(sample.records(), path)


def read_sample(path) -> PageSample:
    """Read ``sample.jsonl`` back; every problem names the line and the field."""
    rows, seen, settings = [], {}, None
    for line, row in iter_jsonl(path, "a page sample (JSON lines from `rag-metrics golden sample`)"):
        page = check_page_row(row, path, line, seen)
        if not page["text"].strip():
            raise InputError(f"page {page['page']} of {page['doc_id']!r} has no text; a question needs a page with "
                             "text.", path=path, line=line, field="text")
        these = {k: row.get(k) for k in ("seed", "per_document", "min_chars")}
        settings = these if settings is None else settings
        size = row.get("size")
        rows.append({**page, "size": size if isinstance(size, int) and not isinstance(size, bool)
                     else page_size(page["text"])})
    if not rows:
        raise InputError("the sample holds no page.", path=path)
    columns = ["doc_id", "page", "text", "title", "genre", "language", "size"]
    return PageSample(pd.DataFrame(rows, columns=columns),
                      pd.DataFrame(columns=["doc_id", "pages", "eligible", "wanted", "drawn"]),
                      {**(settings or {}), "source": str(path)})
