"""Judges: does a retrieved item satisfy a golden (document, page) label?

An item is one retrieved chunk: its document, and -- when known -- its text and the pages it
spans. Items come from the built-in retrievers (text looked up in the chunk table) or from a
system's logs (text and page metadata as logged). Four judges:

* :class:`DocumentJudge` -- the item's document is a gold document (pages ignored).
* :class:`PageJudge(window=1)` -- the document matches and one of the item's pages (its page
  metadata) is a gold page ``p`` with ``|N - p| <= window``. Needs page metadata.
* :class:`MarkerJudge(window=1)` -- the document matches and the item's text contains the
  OCR marker ``[p.N]`` of a gold page within the window. A chunk that starts mid-page carries
  that page's text but not its marker: this judge under-counts. Needs text with markers.
* :class:`OverlapJudge(min_chars=24, window=1)` -- the document matches and some fragment
  of at least ``min_chars`` (F) characters of the item's text occurs in the text of a gold page
  ``p +- window``, both sides normalized alike (NFKC, page markers removed, whitespace
  collapsed). Characters, not words, so it works for Japanese. A fragment of >= F characters is
  shared exactly when an F-character substring is, so pages and items are compared through
  64-bit hashes of their F-character substrings (:func:`rag_metrics.text.gram_hashes`), and every
  match is verified on the strings: no scan per item-page pair, no false match. An item shorter
  than F (after normalization) never satisfies this judge. Needs text and the corpus's pages.

Each judge has ``params()``, ``index(corpus)`` (what it precomputes from the pages: nothing, or
the pages' texts whose hashes are computed on first use), ``satisfied(item, gold, index)`` for one
item and ``satisfy(items, gold, index)`` for a whole run. :func:`judge_run` adds to every result
row the set of gold pages it satisfies; :func:`rag_metrics.measures.pages.evaluate_pages` turns
that into page-level measures, and :func:`rag_metrics.analysis.failures.failure_breakdown` sorts
the misses.

No judge is stronger than another by law, except that the document judge counts everything the
others count (they all need the document to match). The page, marker and overlap judges look at
different evidence (page metadata, a marker the chunk may have lost, shared text), so each can
count an item the others do not, and the overlap judge gets stricter as F grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, check_int
from ..text import PAGE_MARKER, gram_hashes, normalize

__all__ = ["DocumentJudge", "PageJudge", "MarkerJudge", "OverlapJudge", "PageIndex", "judge_run", "make_judge",
           "JUDGES", "shared_spans"]


class _Judge:
    """Shared behaviour: a batch of items is judged one by one unless a judge does better."""

    name = "judge"
    needs: str | None = None  # "text", "pages" or None

    def params(self) -> dict:
        return {"judge": self.name}

    def index(self, corpus):
        return None

    def satisfied(self, item: dict, gold: list[tuple[str, int]], index=None) -> set:  # pragma: no cover
        raise NotImplementedError

    def satisfy(self, items: pd.DataFrame, gold: dict, index=None) -> list[frozenset]:
        """For each row of ``items`` (question_id, doc_id[, text, pages]), the gold pages it satisfies."""
        columns = [c for c in ("question_id", "doc_id", "text", "pages") if c in items.columns]
        return [frozenset(self.satisfied(dict(zip(columns, row)), gold.get(row[0], []), index))
                for row in items[columns].itertuples(index=False, name=None)]


@dataclass(frozen=True)
class DocumentJudge(_Judge):
    """The item's document is a gold document."""

    name: str = "document"

    def satisfied(self, item: dict, gold: list[tuple[str, int]], index=None) -> set:
        return {(d, p) for d, p in gold if d == item["doc_id"]}


@dataclass(frozen=True)
class PageJudge(_Judge):
    """The document matches and the item's page metadata lies within ``window`` of a gold page."""

    window: int = 1
    name: str = "page"
    needs = "pages"

    def __post_init__(self):
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "window": self.window}

    def satisfied(self, item, gold, index=None) -> set:
        pages = item.get("pages") or ()
        return {(d, p) for d, p in gold if d == item["doc_id"] and any(abs(n - p) <= self.window for n in pages)}


@dataclass(frozen=True)
class MarkerJudge(_Judge):
    """The document matches and the item's text contains ``[p.N]`` for a gold page within ``window``."""

    window: int = 1
    name: str = "marker"
    needs = "text"

    def __post_init__(self):
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "window": self.window}

    def satisfied(self, item, gold, index=None) -> set:
        text = item.get("text")
        if not isinstance(text, str):
            return set()
        markers = {int(n) for n in PAGE_MARKER.findall(text)}
        return {(d, p) for d, p in gold if d == item["doc_id"] and any(abs(m - p) <= self.window for m in markers)}


class PageIndex:
    """The pages' texts, normalized and hashed on first use (per F), keyed by ``(doc_id, page)``."""

    def __init__(self, corpus):
        pages = getattr(corpus, "pages", corpus)
        self.raw = {(d, int(p)): t for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}
        self._norm: dict = {}
        self._grams: dict = {}

    def normalized(self, key) -> str:
        if key not in self._norm:
            self._norm[key] = normalize(self.raw[key])
        return self._norm[key]

    def grams(self, key, n: int) -> np.ndarray:
        """Sorted unique hashes of the page's ``n``-character substrings."""
        if (key, n) not in self._grams:
            self._grams[key, n] = np.unique(gram_hashes(self.normalized(key), n))
        return self._grams[key, n]


@dataclass(frozen=True)
class OverlapJudge(_Judge):
    """The document matches and an F-character fragment of the item occurs on a gold page +- window."""

    min_chars: int = 24
    window: int = 1
    name: str = "overlap"
    needs = "text"

    def __post_init__(self):
        check_int(self.min_chars, "min_chars")
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "min_chars": self.min_chars, "window": self.window}

    def index(self, corpus) -> PageIndex:
        return corpus if isinstance(corpus, PageIndex) else PageIndex(corpus)

    def _candidate_pages(self, gold, doc, index: PageIndex) -> list:
        return sorted({(d, q) for d, p in gold if d == doc for q in range(p - self.window, p + self.window + 1)
                       if (d, q) in index.raw})

    def _table(self, pages, index: PageIndex):
        """All hashes of ``pages`` sorted, with the page each belongs to."""
        if not pages:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        arrays = [index.grams(key, self.min_chars) for key in pages]
        hashes = np.concatenate(arrays)
        labels = np.repeat(np.arange(len(pages)), [a.shape[0] for a in arrays])
        order = np.argsort(hashes, kind="stable")
        return hashes[order], labels[order]

    def _matched_pages(self, text: str, pages, table, index: PageIndex) -> set:
        """Pages (of ``pages``) sharing a verified F-character fragment with ``text`` (normalized)."""
        hashes, labels = table
        f = self.min_chars
        item = gram_hashes(text, f)
        if not item.shape[0] or not hashes.shape[0]:
            return set()
        left = np.searchsorted(hashes, item, side="left")
        right = np.searchsorted(hashes, item, side="right")
        hit = np.flatnonzero(right > left)
        if not hit.shape[0]:
            return set()
        counts = (right - left)[hit]
        slots = np.repeat(left[hit], counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
        positions = np.repeat(hit, counts)
        found: set = set()
        for label in np.unique(labels[slots]):
            key = pages[int(label)]
            page_text = index.normalized(key)
            for pos in positions[labels[slots] == label]:  # verify on the strings (hashes may collide)
                if text[pos: pos + f] in page_text:
                    found.add(key)
                    break
        return found

    def _judge_one(self, doc, text, gold, index, table_cache) -> set:
        if not isinstance(text, str) or not any(d == doc for d, _ in gold):
            return set()
        pages = self._candidate_pages(gold, doc, index)
        key = tuple(pages)
        if key not in table_cache:
            table_cache[key] = self._table(pages, index)
        matched = self._matched_pages(normalize(text), pages, table_cache[key], index)
        return {(d, p) for d, p in gold if d == doc and any(abs(q - p) <= self.window for dd, q in matched if dd == d)}

    def satisfied(self, item, gold, index) -> set:
        return self._judge_one(item["doc_id"], item.get("text"), gold, self.index(index), {})

    def satisfy(self, items, gold, index=None) -> list[frozenset]:
        index = self.index(index)
        cache: dict = {}
        return [frozenset(self._judge_one(d, t, gold.get(q, []), index, cache))
                for q, d, t in zip(items["question_id"], items["doc_id"], items["text"])]


JUDGES = {"document": DocumentJudge, "page": PageJudge, "marker": MarkerJudge, "overlap": OverlapJudge}


def make_judge(name: str, **params):
    """A judge by name (``document``, ``page``, ``marker``, ``overlap``) with its parameters."""
    if name not in JUDGES:
        raise InputError(f"unknown judge {name!r}; expected one of {', '.join(JUDGES)}.", field="judge")
    if name == "document":
        params = {}
    elif name != "overlap":
        params = {k: v for k, v in params.items() if k == "window"}
    return JUDGES[name](**params)


def judge_run(run: pd.DataFrame, chunks: pd.DataFrame | None, gold_pages: pd.DataFrame, judge, corpus) -> pd.DataFrame:
    """Add to each result row the set of gold pages it satisfies (``satisfies``) and ``hit`` (non-empty).

    The row's text is its ``text`` column when the run has one (a logged run), else the chunk's text
    looked up by ``chunk_id`` in ``chunks``.
    """
    items = run
    if "text" not in run.columns:
        if chunks is None:
            raise InputError("judge_run: the run has no text column; pass the chunk table to look texts up.")
        text = chunks.set_index("chunk_id")["text"]
        missing = sorted(set(run["chunk_id"]) - set(text.index))
        if missing:
            raise InputError(f"judge_run: chunk {missing[0]!r} of the run is not in the chunk table.")
        items = run.assign(text=run["chunk_id"].map(text))
    gold = {q: list(zip(g["doc_id"], g["page"])) for q, g in gold_pages.groupby("question_id")}
    satisfies = judge.satisfy(items, gold, judge.index(corpus) if corpus is not None else None)
    out = run.copy()
    out["satisfies"] = satisfies
    out["hit"] = [bool(s) for s in satisfies]
    return out


def shared_spans(text: str, pages: list[str], min_chars: int) -> list[tuple[int, int]]:
    """Spans of ``text`` covered by ``min_chars``-character fragments that occur in one of ``pages``.

    For showing what a judge saw: both sides as given (normalize them first to match the overlap
    judge). Adjacent or overlapping fragments merge into one span.
    """
    grams = gram_hashes(text, min_chars)
    if not grams.shape[0] or not pages:
        return []
    page_hashes = np.unique(np.concatenate([gram_hashes(p, min_chars) for p in pages]))
    candidates = np.flatnonzero(np.isin(grams, page_hashes))
    spans: list[list[int]] = []
    for pos in candidates:
        if not any(text[pos: pos + min_chars] in p for p in pages):
            continue  # a hash collision
        if spans and pos <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], pos + min_chars)
        else:
            spans.append([int(pos), int(pos) + min_chars])
    return [(a, b) for a, b in spans]
