"""The pages a text judge reads: normalized once, hashed once per fragment length, their boilerplate found.

:class:`PageIndex` holds a corpus's pages normalized (:func:`rag_metrics.text.normalize`) and answers, for many
``(text, page)`` pairs at once, whether the two share a fragment of ``n`` characters that is not boilerplate
(:meth:`PageIndex.shares`): the core of the overlap judge, of locating logged text on the pages and of the page
audit.

Boilerplate
-----------
Running headers and footers, page numbers, copyright lines and repeated titles recur on many pages of a document:
sharing them with a gold page is no evidence of that page. :class:`Boilerplate` is the rule that finds them, per
document, from the pages themselves: an ``n``-character fragment is boilerplate of its document when it occurs --
with every digit read as ``0``, so that ``Policy 3`` and ``Policy 12`` are one footer -- on **more than** ``share``
of the document's pages **and** on at least ``min_pages`` of them (defaults 0.5 and 3; a document of fewer than
``min_pages`` pages has none). Every character inside such a fragment is *furniture*; a match counts only where
the page's fragment holds no furniture character -- so neither the footer itself nor a fragment straddling it
and the last words of the body (``change. Business Travel Polic``, on the few pages whose body ends alike) is
evidence. The item's fragment is the same string, so furniture is left out of the item side too. :func:`boilerplate_lines`
lists, per document, the repeated text that was left out.

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..text import Concat, gram_hashes, normalize

__all__ = ["PageIndex", "Boilerplate", "DEFAULT_BOILERPLATE", "boilerplate_lines", "BLOCK_CHARS"]

BLOCK_CHARS = 4_000_000
"""Item texts are hashed in blocks of about this many characters (bounded memory)."""


@dataclass(frozen=True)
class Boilerplate:
    """The boilerplate rule (module docstring): a fragment on more than ``share`` of a document's pages and on at
    least ``min_pages`` of them is boilerplate. ``share=1`` turns the rule off."""

    share: float = 0.5
    min_pages: int = 3

    def __post_init__(self):
        if isinstance(self.share, bool) or not isinstance(self.share, (int, float)) or not 0 < self.share <= 1:
            raise InputError(f"boilerplate share {self.share!r}: expected a number in (0, 1].", field="boilerplate_share")
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


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(starts[i], ends[i])`` for every i."""
    lengths = np.maximum(ends - starts, 0)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    base = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return base + np.arange(total, dtype=np.int64)


class PageIndex:
    """A corpus's pages (a :class:`~rag_metrics.io.corpus.Corpus` or a table doc_id, page, text), normalized.

    ``keys[i]`` is page row ``i`` as ``(doc_id, page)``; ``raw`` maps keys to the page text as given;
    ``n_pages[doc]`` is the document's last page. Hashes, sorted fragment tables and boilerplate masks are
    computed on first use and kept, so one index serves every judge and every log of a report.
    """

    def __init__(self, corpus):
        pages = getattr(corpus, "pages", corpus)
        self.keys = [(d, int(p)) for d, p in zip(pages["doc_id"], pages["page"])]
        texts = [t if isinstance(t, str) else "" for t in pages["text"]]
        self.raw = dict(zip(self.keys, texts))
        self.row = {k: i for i, k in enumerate(self.keys)}
        self.norm = [normalize(t) for t in texts]
        self.docs: dict[str, list[int]] = {}
        for i, (d, p) in enumerate(self.keys):
            self.docs.setdefault(d, []).append(i)
        for d in self.docs:
            self.docs[d].sort(key=lambda i: self.keys[i][1])
        self.n_pages = {d: max(self.keys[i][1] for i in rows) for d, rows in self.docs.items()}
        self.doc_of_row = np.array([d for d, _ in self.keys], dtype=object)
        self._concat: Concat | None = None
        self._folded: Concat | None = None
        self._sorted: dict = {}
        self._bp: dict = {}
        self._bp_done: dict = {}
        self._grams: dict = {}

    # -- small helpers kept for callers that work page by page -------------------------------------------------
    def normalized(self, key) -> str:
        return self.norm[self.row[key]]

    def grams(self, key, n: int) -> np.ndarray:
        """Sorted unique hashes of the page's ``n``-character fragments."""
        if (key, n) not in self._grams:
            self._grams[key, n] = np.unique(gram_hashes(self.normalized(key), n))
        return self._grams[key, n]

    @property
    def empty(self) -> list:
        """Pages whose text is empty after normalization (a scanned page): no text judge can find them."""
        return [k for k, t in zip(self.keys, self.norm) if not t]

    # -- arrays ------------------------------------------------------------------------------------------------
    @property
    def concat(self) -> Concat:
        if self._concat is None:
            self._concat = Concat(self.norm)
        return self._concat

    @property
    def folded(self) -> Concat:
        if self._folded is None:
            self._folded = Concat(self.norm, folded=True)
        return self._folded

    def _row_starts(self, rows, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Global positions of every ``n``-character fragment of the given page rows, and the row of each."""
        off = self.concat.offsets
        rows = np.asarray(rows, dtype=np.int64)
        starts, ends = off[rows], np.maximum(off[rows + 1] - n + 1, off[rows])
        pos = _ranges(starts, ends)
        return pos, np.repeat(rows, ends - starts)

    def sorted_grams(self, doc, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``n``-fragment hashes of every page of ``doc`` (fragments inside one page) sorted, with the global
        position of each."""
        key = (doc, n)
        if key not in self._sorted:
            pos, _ = self._row_starts(self.docs[doc], n)
            h = self.concat.hashes(pos, n)
            order = np.argsort(h)
            self._sorted[key] = (h[order], pos[order])
        return self._sorted[key]

    def boilerplate_mask(self, n: int, rule: Boilerplate | None, docs) -> np.ndarray:
        """Boolean per global position: the ``n``-fragment starting there is boilerplate of its document (computed
        for ``docs`` on first use)."""
        total = self.concat.codes.shape[0]
        if rule is None:
            return np.zeros(total, dtype=bool)
        key = (n, rule)
        mask = self._bp.setdefault(key, np.zeros(total, dtype=bool))
        done = self._bp_done.setdefault(key, set())
        for doc in docs:
            if doc in done:
                continue
            done.add(doc)
            rows = self.docs.get(doc, [])
            need = rule.pages_needed(len(rows))
            if need is None:
                continue
            pos, owner = self._row_starts(rows, n)
            if not pos.shape[0]:
                continue
            folded = self.folded.hashes(pos, n)
            code, _ = pd.factorize(folded)  # exact: one code per distinct hash
            page = owner - owner.min()
            width = int(page.max()) + 1
            present = np.zeros((int(code.max()) + 1) * width, dtype=bool)
            present[code * width + page] = True  # distinct (hash, page), without sorting
            on_pages = present.reshape(-1, width).sum(axis=1)
            mask[pos[on_pages[code] >= need]] = True
        return mask

    def furniture(self, n: int, rule: Boilerplate | None, docs) -> np.ndarray:
        """Cumulative count of boilerplate *characters* (those inside a boilerplate ``n``-fragment) over global
        positions: ``c[b + n] - c[b] == 0`` says the fragment at ``b`` is body text only."""
        mask = self.boilerplate_mask(n, rule, docs)
        total = mask.shape[0]
        key = ("furniture", n, rule)
        if key in self._bp and self._bp[key][1] == len(self._bp_done.get((n, rule), ())):
            return self._bp[key][0]
        starts = np.zeros(total + 1, dtype=np.int32)
        np.cumsum(mask, out=starts[1:])
        # character x is furniture when a boilerplate fragment starts in [x - n + 1, x]
        chars = (starts[1:] - starts[np.maximum(np.arange(1, total + 1) - n, 0)]) > 0
        cum = np.zeros(total + 1, dtype=np.int32)
        np.cumsum(chars, out=cum[1:])
        self._bp[key] = (cum, len(self._bp_done.get((n, rule), ())))
        return cum

    # -- the core query ----------------------------------------------------------------------------------------
    def shares(self, texts, pair_text, pair_row, n: int, rule: Boilerplate | None = DEFAULT_BOILERPLATE) -> np.ndarray:
        """For each pair ``(texts[pair_text[i]], page row pair_row[i])``: do they share an ``n``-character fragment
        that is not boilerplate of the page's document? ``texts`` are normalized already.

        Exact, without comparing every fragment: the texts' fragments of ``m = n - s + 1`` characters are looked
        up only at every ``s``-th position (``s = max(1, n // 3)``) in the page's sorted table of all its
        ``m``-fragments; any shared ``n``-fragment contains such a sampled one (one of ``s`` consecutive starts is
        a multiple of ``s``). Each lookup hit is then checked on the code points over the ``n + s - 1`` characters
        around it: a run of ``n`` equal characters whose page fragment is not boilerplate confirms the pair.
        Hash collisions cost a check, never a false match.
        """
        pair_text = np.asarray(pair_text, dtype=np.int64)
        pair_row = np.asarray(pair_row, dtype=np.int64)
        out = np.zeros(pair_text.shape[0], dtype=bool)
        if not pair_text.shape[0]:
            return out
        s = max(1, n // 3)
        m = n - s + 1
        used = np.unique(pair_text)
        # item side: sampled m-fragment hashes of the texts that take part, hashed block by block
        local_of = np.full(len(texts), -1, dtype=np.int64)
        local_of[used] = np.arange(used.shape[0])
        chosen = [texts[i] for i in used]
        lengths = np.fromiter((len(t) for t in chosen), dtype=np.int64, count=len(chosen))
        item_off = np.zeros(len(chosen) + 1, dtype=np.int64)
        np.cumsum(lengths, out=item_off[1:])
        codes_parts, hash_parts, pos_parts = [], [], []
        start = 0
        while start < len(chosen):
            stop = start + 1
            size = lengths[start]
            while stop < len(chosen) and size + lengths[stop] <= BLOCK_CHARS:
                size += lengths[stop]
                stop += 1
            block = Concat(chosen[start:stop])
            codes_parts.append(block.codes)
            p = block.starts(m, step=s)
            hash_parts.append(block.hashes(p, m))
            pos_parts.append(p + item_off[start])
            start = stop
        item_codes = np.concatenate(codes_parts) if codes_parts else np.zeros(0, dtype=np.uint32)
        item_hash = np.concatenate(hash_parts)
        item_pos = np.concatenate(pos_parts)
        item_owner = np.searchsorted(item_off, item_pos, side="right") - 1
        first_gram = np.searchsorted(item_owner, np.arange(len(chosen)), side="left")
        last_gram = np.searchsorted(item_owner, np.arange(len(chosen)), side="right")
        # page side, one document at a time: every text paired with one of its pages looked up at once
        n_rows = len(self.keys)
        pair_local = local_of[pair_text]
        pair_key = pair_local * n_rows + pair_row
        doc_codes, doc_names = pd.factorize(self.doc_of_row[pair_row])
        order = np.argsort(doc_codes, kind="stable")
        codes_sorted = doc_codes[order]
        bounds = np.flatnonzero(np.r_[True, codes_sorted[1:] != codes_sorted[:-1], True])
        off = self.concat.offsets
        cand_pair, cand_i, cand_j = [], [], []
        for a, b in zip(bounds[:-1], bounds[1:]):
            pairs = order[a:b]
            table, table_pos = self.sorted_grams(doc_names[codes_sorted[a]], m)
            if not table.shape[0]:
                continue
            keys = np.unique(pair_key[pairs])
            owners = np.unique(pair_local[pairs])
            idx = _ranges(first_gram[owners], last_gram[owners])
            if not idx.shape[0]:
                continue
            q = item_hash[idx]
            left = np.searchsorted(table, q, side="left")
            right = np.searchsorted(table, q, side="right")
            hit = np.flatnonzero(right > left)
            if not hit.shape[0]:
                continue
            counts = (right - left)[hit]
            j = table_pos[_ranges(left[hit], right[hit])]
            g = np.repeat(idx[hit], counts)
            key = item_owner[g] * n_rows + (np.searchsorted(off, j, side="right") - 1)
            slot = np.minimum(np.searchsorted(keys, key), keys.shape[0] - 1)
            keep = keys[slot] == key  # the hit lies on a page paired with this text
            if not keep.any():
                continue
            cand_pair.append(keys[slot[keep]])
            cand_i.append(item_pos[g[keep]])
            cand_j.append(j[keep])
        if not cand_pair:
            return out
        ck, ci, cj = np.concatenate(cand_pair), np.concatenate(cand_i), np.concatenate(cand_j)
        # candidate key (text, row) -> the pairs with that key (a pair may repeat: one per item of a question)
        uniq_keys, pair_of_key = np.unique(pair_key, return_inverse=True)
        cp = np.searchsorted(uniq_keys, ck)  # index of the (text, row) key
        key_row = uniq_keys % n_rows
        docs = {self.keys[r][0] for r in np.unique(key_row[cp])}
        bp = self.furniture(n, rule, docs)
        owner_of_item = np.searchsorted(item_off, ci, side="right") - 1
        lo, hi = item_off[owner_of_item], item_off[owner_of_item + 1]

        def confirm(sel):
            return self._confirm(ci[sel], cj[sel], key_row[cp[sel]], lo[sel], hi[sel], n, s, item_codes, bp)

        # round 1: the first candidate of each (text, row); round 2: every candidate of those still unconfirmed
        done = np.zeros(uniq_keys.shape[0], dtype=bool)
        _, first = np.unique(cp, return_index=True)
        done[cp[first][confirm(first)]] = True
        rest = np.flatnonzero(~done[cp])
        if rest.shape[0]:
            done[cp[rest][confirm(rest)]] = True
        out[:] = done[pair_of_key]
        return out

    def _confirm(self, ci, cj, rows, item_lo, item_hi, n, s, item_codes, bp) -> np.ndarray:
        """Candidates (item position, page position) around which the code points hold a run of n equal characters
        whose page fragment is not boilerplate."""
        width = n + s - 1
        off = self.concat.offsets
        page_lo, page_hi = off[rows], off[rows + 1]
        steps = np.arange(width, dtype=np.int64)
        ia = (ci - (s - 1))[:, None] + steps
        jb = (cj - (s - 1))[:, None] + steps
        valid = (ia >= item_lo[:, None]) & (ia < item_hi[:, None]) & (jb >= page_lo[:, None]) & \
                (jb < page_hi[:, None])
        codes = self.concat.codes
        eq = valid & (item_codes[np.clip(ia, 0, max(item_codes.shape[0] - 1, 0))]
                      == codes[np.clip(jb, 0, max(codes.shape[0] - 1, 0))])
        run = np.zeros((eq.shape[0], width + 1), dtype=np.int32)
        np.cumsum(eq, axis=1, out=run[:, 1:])
        full = (run[:, n:] - run[:, :-n]) == n  # an n-run starting at offset u, u in 0..s-1
        b = np.clip(jb[:, :s], 0, bp.shape[0] - 1 - n)
        fine = full & (bp[b + n] == bp[b])  # no boilerplate character in the page fragment
        return fine.any(axis=1)

    def shared_spans(self, text: str, rows, n: int, rule: Boilerplate | None = DEFAULT_BOILERPLATE):
        """Spans of the normalized ``text`` covered by ``n``-fragments found on the page rows, as
        ``(start, end, boilerplate)`` with adjacent fragments of one kind merged (for showing what a judge saw)."""
        grams = gram_hashes(text, n)
        rows = [r for r in rows if len(self.norm[r]) >= n]
        if not grams.shape[0] or not rows:
            return []
        docs = {self.keys[r][0] for r in rows}
        cum = self.furniture(n, rule, docs)
        pos, _ = self._row_starts(rows, n)
        h = self.concat.hashes(pos, n)
        clean = cum[pos + n] == cum[pos]
        plain, furniture = np.unique(h[clean]), np.unique(h[~clean])
        kinds = []
        for i in np.flatnonzero(np.isin(grams, plain) | np.isin(grams, furniture)):
            frag = text[i:i + n]
            found = [r for r in rows if frag in self.norm[r]]
            if not found:
                continue  # a hash collision
            kinds.append((int(i), bool(np.isin(grams[i], furniture)) and not np.isin(grams[i], plain)))
        spans: list[list] = []
        for kind in (False, True):  # merged per kind: plain spans never overlap each other
            mine: list[list] = []
            for i, is_bp in kinds:
                if is_bp != kind:
                    continue
                if mine and i <= mine[-1][1]:
                    mine[-1][1] = max(mine[-1][1], i + n)
                else:
                    mine.append([i, i + n, kind])
            spans += mine
        return sorted((a, b, k) for a, b, k in spans)


_DIGITS = re.compile(r"[0-9]+")


def boilerplate_lines(index: PageIndex, n: int = 24, rule: Boilerplate | None = DEFAULT_BOILERPLATE) -> pd.DataFrame:
    """What the boilerplate rule leaves out, per document: one row per repeated text (digits shown as ``#``)
    with ``pages`` (how many of the document's ``n_pages`` pages hold it) and ``example`` (its text on the first
    page that holds it). Columns: doc_id, text, pages, n_pages, example."""
    columns = ["doc_id", "text", "pages", "n_pages", "example"]
    if rule is None:
        return pd.DataFrame(columns=columns)
    mask = index.boilerplate_mask(n, rule, list(index.docs))
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
    rows = [{"doc_id": d, "text": t, "pages": len(v["pages"]), "n_pages": len(index.docs[d]), "example": v["example"]}
            for (d, t), v in found.items()]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["doc_id", "pages", "text"], ascending=[True, False, True], kind="stable",
                             ignore_index=True)
