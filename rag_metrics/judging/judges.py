"""Judges: does a retrieved chunk satisfy a golden (document, page) label?

Three judges, each a small frozen dataclass with ``params()``, ``index(corpus)`` (what it precomputes
from the pages, built once per :func:`judge_run`) and ``satisfied(chunk, gold, index)``:

* :class:`DocumentJudge` -- the chunk's document is a gold document (pages ignored).
* :class:`MarkerJudge(window=1)` -- the document matches and the chunk's text contains the
  OCR marker ``[p.N]`` of a gold page ``p`` with ``|N - p| <= window``. A chunk that starts
  mid-page carries that page's text but not its marker: this judge under-counts.
* :class:`OverlapJudge(min_chars=24, window=1)` -- the document matches and some fragment
  of at least ``min_chars`` (F) characters of the chunk occurs in the text of a gold page
  ``p +- window``, both sides normalized alike (NFKC, page markers removed, whitespace
  collapsed). Characters, not words, so it works for Japanese. A fragment of >= F
  characters is shared exactly when an F-character substring is, so each page is indexed
  as the set of its F-character substrings and a chunk is judged by a set intersection
  (hashing; no scan per chunk-page pair). A chunk shorter than F (after normalization)
  never satisfies this judge.

Each judge is independent of the measures: :func:`judge_run` adds to every result row the set of
gold pages it satisfies. :func:`rag_metrics.measures.pages.evaluate_pages` turns that into page-level
measures, and :func:`rag_metrics.analysis.failures.failure_breakdown` sorts the misses.

No judge is stronger than another by law. The document judge counts a chunk of any page of a
gold document; the marker and overlap judges look at different evidence (a marker the chunk may
have lost, or text it shares), so either can count a chunk the other does not, and the overlap
judge gets stricter as F grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..errors import InputError, check_int
from ..text import PAGE_MARKER, normalize

__all__ = ["DocumentJudge", "MarkerJudge", "OverlapJudge", "judge_run"]


@dataclass(frozen=True)
class DocumentJudge:
    """The chunk's document is a gold document."""

    name: str = "document"

    def params(self) -> dict:
        return {"judge": self.name}

    def index(self, corpus) -> None:
        return None

    def satisfied(self, chunk: dict, gold: list[tuple[str, int]], index=None) -> set:
        return {(d, p) for d, p in gold if d == chunk["doc_id"]}


@dataclass(frozen=True)
class MarkerJudge:
    """The document matches and the chunk contains ``[p.N]`` for a gold page within ``window``."""

    window: int = 1
    name: str = "marker"

    def __post_init__(self):
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "window": self.window}

    def index(self, corpus) -> None:
        return None

    def satisfied(self, chunk, gold, index=None) -> set:
        markers = {int(n) for n in PAGE_MARKER.findall(chunk["text"])}
        return {(d, p) for d, p in gold if d == chunk["doc_id"] and any(abs(m - p) <= self.window for m in markers)}


@dataclass(frozen=True)
class OverlapJudge:
    """The document matches and an F-character fragment of the chunk occurs on a gold page +- window."""

    min_chars: int = 24
    window: int = 1
    name: str = "overlap"

    def __post_init__(self):
        check_int(self.min_chars, "min_chars")
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "min_chars": self.min_chars, "window": self.window}

    def _grams(self, text: str) -> set:
        f = self.min_chars
        return {text[i : i + f] for i in range(len(text) - f + 1)}

    def index(self, corpus) -> dict:
        """``{(doc_id, page): set of F-character substrings of the normalized page}`` (built per call)."""
        pages = corpus.pages
        return {(d, p): self._grams(normalize(t)) for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}

    def satisfied(self, chunk, gold, index) -> set:
        grams = None
        out = set()
        for d, p in gold:
            if d != chunk["doc_id"]:
                continue
            if grams is None:
                grams = self._grams(normalize(chunk["text"]))
                if not grams:
                    return set()
            pages = (index.get((d, q), set()) for q in range(p - self.window, p + self.window + 1))
            if any(not grams.isdisjoint(page) for page in pages):
                out.add((d, p))
        return out


def judge_run(run: pd.DataFrame, chunks: pd.DataFrame, gold_pages: pd.DataFrame, judge, corpus) -> pd.DataFrame:
    """Add to each result row the set of gold pages it satisfies (``satisfies``) and ``hit`` (non-empty)."""
    text = chunks.set_index("chunk_id")["text"]
    missing = sorted(set(run["chunk_id"]) - set(text.index))
    if missing:
        raise InputError(f"judge_run: chunk {missing[0]!r} of the run is not in the chunk table.")
    gold = {q: list(zip(g["doc_id"], g["page"])) for q, g in gold_pages.groupby("question_id")}
    index = judge.index(corpus)
    satisfies = [
        frozenset(judge.satisfied({"doc_id": d, "text": text[c]}, gold.get(q, []), index))
        for q, c, d in zip(run["question_id"], run["chunk_id"], run["doc_id"])
    ]
    out = run.copy()
    out["satisfies"] = satisfies
    out["hit"] = [bool(s) for s in satisfies]
    return out
