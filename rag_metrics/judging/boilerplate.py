"""What a text judge leaves out: the running headers, footers and page numbers a document repeats on its pages.

Running headers and footers, page numbers, copyright lines and repeated titles recur on many pages of a document:
sharing them with a gold page is no evidence of that page. :class:`Boilerplate` is the rule that finds them, per
document, from the pages themselves: an ``n``-character fragment is boilerplate of its document when it occurs --
with every digit read as ``0``, so that ``Policy 3`` and ``Policy 12`` are one footer -- on **more than** ``share``
of the document's pages **and** on at least ``min_pages`` of them (defaults 0.5 and 3; a document of fewer than
``min_pages`` pages has none). Every character inside such a fragment is *furniture*; a match counts only where
the page's fragment holds no furniture character -- so neither the footer itself nor a fragment straddling it
and the last words of the body (``change. Business Travel Polic``, on the few pages whose body ends alike) is
evidence. The item's fragment is the same string, so furniture is left out of the item side too.
:func:`boilerplate_lines` lists, per document, the repeated text that was left out.

What the rule cannot catch (say so when you report a text-judged figure):

* text repeated on **fewer** pages than the threshold: a section's running header on 4 of 20 pages, a chapter title
  repeated on its own 3 pages, a disclaimer on every other page of a short document;
* documents shorter than ``min_pages`` pages (two-page documents keep their footers -- there the page window
  already spans the whole document);
* furniture that varies by more than its digits: roman page numbers (``iv``), spelled dates (``3 March``), the
  section title in a running header, a header drawn in another reading order on some pages;
* furniture that is not in the text layer at all, or that the PDF reader merges with body text into one
  different fragment on every page;
* genuine content repeated on most pages (a clause restated in every section) is removed too: it is no evidence
  of one page either, but an item sharing only that with its gold page is no longer counted;
* fragments shared across documents are not looked at: a judge already needs the document to match.

:func:`find_boilerplate` finds the rule's fragments for a page index (:class:`~rag_metrics.judging.page_index.PageIndex`
keeps them per rule), :func:`boilerplate_lines` lists them as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import text_blocks
from rag_metrics.judging import minimizers  # minimizers.BLOCK read when used (tests shrink it)
from rag_metrics.judging.minimizers import block_hashes, concat_ranges, direct_hashes

__all__ = ["Boilerplate", "DEFAULT_BOILERPLATE", "find_boilerplate", "boilerplate_lines"]


@dataclass(frozen=True)
class Boilerplate:
    """The boilerplate rule (module docstring): a fragment on more than ``share`` of a document's pages and on at
    least ``min_pages`` of them is boilerplate. ``share=1`` turns the rule off."""

    share: float = 0.5
    min_pages: int = 3

    def __post_init__(self):
        if isinstance(self.share, bool) or not isinstance(self.share, (int, float)) or not 0 < self.share <= 1:
            raise InputError(f"boilerplate share {self.share!r}: expected a number in (0, 1].",
                             field="boilerplate_share")
        if isinstance(self.min_pages, bool) or not isinstance(self.min_pages, int) or self.min_pages < 2:
            raise InputError(f"boilerplate min_pages {self.min_pages!r}: expected an int >= 2.",
                             field="boilerplate_min_pages")

    def pages_needed(self, n_pages: int) -> int | None:
        """Fewest pages a fragment must occur on to be boilerplate of an ``n_pages``-page document (None: never)."""
        if self.share >= 1 or n_pages < self.min_pages:
            return None
        return max(self.min_pages, int(np.floor(self.share * n_pages)) + 1)

    def params(self) -> dict:
        return {"boilerplate_share": self.share, "boilerplate_min_pages": self.min_pages}


DEFAULT_BOILERPLATE = Boilerplate()


def find_boilerplate(index, n: int, rule: Boilerplate) -> np.ndarray:
    """Global positions, ascending, of every ``n``-fragment (digits folded) found on at least ``rule.pages_needed``
    pages of its document.

    Counted exactly, but only where it can hold: first every fragment is counted into a table of buckets (the bucket
    from the fragment's hash and its document; a few buckets per character, for runs of whole documents of about
    :data:`~rag_metrics.judging.minimizers.BLOCK` characters when each document's pages are together, else for the whole
    corpus). A fragment on ``k`` pages has at least ``k`` occurrences in its bucket, so only fragments in buckets
    holding at least the fewest pages needed are hashed again and their distinct pages counted per document."""
    off = index.offsets
    total = index.codes.shape[0]
    none = np.zeros(0, dtype=np.int64)
    need = np.array([rule.pages_needed(len(index.docs[d])) or 0 for d in index.docs], dtype=np.int64)
    if not need.any() or total < n:
        return none
    low = int(need[need > 0].min())
    skip = np.flatnonzero(need[index.code_of_row] == 0)  # pages of documents without boilerplate
    skipped = concat_ranges(off[skip], off[skip + 1])
    mix = (((index.code_of_row.astype(np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))
           >> np.uint64(32)).astype(np.uint32)
    change = np.flatnonzero(np.diff(index.code_of_row)) + 1
    if change.shape[0] == len(index.docs) - 1:  # each document's pages together: count run by run
        doc_bounds = off[np.r_[0, change, len(index.keys)]]
        groups = np.r_[text_blocks(doc_bounds, minimizers.BLOCK), total]
    else:
        groups = np.array([0, total], dtype=np.int64)
    hash_bounds = np.unique(np.r_[text_blocks(off, minimizers.BLOCK), groups])
    seeds = [_bucket_seeds(index, n, glo, ghi, low, skipped, mix, hash_bounds)
             for glo, ghi in zip(groups[:-1].tolist(), groups[1:].tolist())]
    starts = np.concatenate(seeds)
    if not starts.shape[0]:
        return none
    row = np.searchsorted(off, starts, side="right") - 1
    h = direct_hashes(index.codes, starts, n, folded=True)
    doc = index.code_of_row[row]
    order = np.lexsort((row, h, doc))
    h, doc, row, starts = h[order], doc[order], row[order], starts[order]
    new_frag = np.r_[True, (h[1:] != h[:-1]) | (doc[1:] != doc[:-1])]
    new_page = new_frag | np.r_[True, row[1:] != row[:-1]]
    first = np.flatnonzero(new_frag)
    pages = np.add.reduceat(new_page.astype(np.int64), first)
    boiler = pages >= need[doc[first]]
    return np.sort(starts[boiler[np.cumsum(new_frag) - 1]])


def _bucket_seeds(index, n: int, glo: int, ghi: int, low: int, skipped, mix, hash_bounds) -> np.ndarray:
    """Global positions in ``[glo, ghi)`` whose ``n``-fragment (digits folded) falls in a bucket holding at least
    ``low`` fragments (:func:`find_boilerplate`): the bucket from the fragment's hash plus its document's ``mix``, a
    few buckets per character; positions in ``skipped`` (documents without boilerplate) count in none."""
    off = index.offsets
    size = ghi - glo
    bits = int(min(max(int(np.ceil(np.log2(max(4 * size / low, 2)))), 10), 24))
    shift, sentinel = np.uint32(32 - bits), np.uint32(1 << bits)
    bucket = np.full(size, sentinel, dtype=np.uint32)
    inner = hash_bounds[(hash_bounds >= glo) & (hash_bounds <= ghi)]
    for lo, h, valid in block_hashes(index.codes, off, n, folded=True, bounds=inner):
        k = valid.shape[0]
        a, b = np.searchsorted(skipped, [lo, lo + k])
        valid[skipped[a:b] - lo] = False
        first, last = np.searchsorted(off, [lo, lo + k], side="right") - 1
        h += np.repeat(mix[first:last + 1], np.diff(np.clip(off[first:last + 2], lo, lo + k)))  # document
        h >>= shift
        into = bucket[lo - glo:lo - glo + k]
        into[:] = h
        into[~valid] = sentinel
    counts = np.bincount(bucket, minlength=(1 << bits) + 1)
    counts[1 << bits] = 0
    return np.flatnonzero(counts[bucket] >= low) + glo


_DIGITS = re.compile(r"[0-9]+")


def _fold_cuts(found: dict, needed: dict) -> dict:
    """Texts left out on fewer pages than the rule needs are other cuts of a repeated text (on one page the
    left-out span starts a word later, or runs on into the body): each joins the repeated text that contains it or
    that it contains, with its pages; a cut that fits none stays a row of its own."""
    kept = {key: {"pages": set(v["pages"]), "example": v["example"]} for key, v in found.items()
            if needed.get(key[0]) is None or len(v["pages"]) >= needed[key[0]]}
    for (doc, text), v in found.items():
        if (doc, text) in kept:
            continue
        home = next((k for k in sorted(kept, key=lambda k: -len(kept[k]["pages"]))
                     if k[0] == doc and (text in k[1] or k[1] in text)), None)
        if home is None:
            kept[(doc, text)] = {"pages": set(v["pages"]), "example": v["example"]}
        else:
            kept[home]["pages"] |= v["pages"]
    return kept


def boilerplate_lines(index, n: int = 24, rule: Boilerplate | None = DEFAULT_BOILERPLATE) -> pd.DataFrame:
    """What the boilerplate rule leaves out, per document: one row per repeated text (digits shown as ``#``)
    with ``pages`` (how many of the document's ``n_pages`` pages leave it, or a cut of it, out) and ``example``
    (its text on the first page that holds it). A span left out on fewer pages than the rule needs is another cut
    of a repeated text (:func:`_fold_cuts`) and is counted with it. Columns: doc_id, text, pages, n_pages,
    example."""
    columns = ["doc_id", "text", "pages", "n_pages", "example"]
    if rule is None:
        return pd.DataFrame(columns=columns)
    mask = index.boilerplate_mask(n, rule)
    off = index.concat.offsets
    found: dict = {}
    for doc, rows in index.docs.items():
        for r in rows:
            lo, hi = int(off[r]), int(off[r + 1])
            starts = np.flatnonzero(mask[lo:hi])
            if not starts.shape[0]:
                continue
            cover = np.zeros(hi - lo + 1, dtype=np.int64)
            np.add.at(cover, starts, 1)
            np.add.at(cover, np.minimum(starts + n, hi - lo), -1)
            covered = np.cumsum(cover[:-1]) > 0
            edges = np.flatnonzero(np.diff(np.r_[0, covered.astype(np.int8), 0]))
            text = index.norm[r]
            for a, b in zip(edges[::2], edges[1::2]):
                piece = text[a:b].strip()
                key = (doc, _DIGITS.sub("#", piece))
                entry = found.setdefault(key, {"pages": set(), "example": piece})
                entry["pages"].add(r)
    found = _fold_cuts(found, {d: rule.pages_needed(len(rows)) for d, rows in index.docs.items()})
    rows = [{"doc_id": d, "text": t, "pages": len(v["pages"]), "n_pages": len(index.docs[d]), "example": v["example"]}
            for (d, t), v in found.items()]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["doc_id", "pages", "text"], ascending=[True, False, True], kind="stable",
                             ignore_index=True)
