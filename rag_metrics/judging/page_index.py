"""The pages a text judge reads: normalized once, hashed once per fragment length, their boilerplate found.

:class:`PageIndex` holds a corpus's pages normalized (:func:`rag_metrics.core.text.normalize`) and answers, for many
``(text, page)`` pairs at once, whether the two share a fragment of ``n`` characters that is not boilerplate
(:meth:`PageIndex.shares`): the core of the overlap judge, of locating logged text on the pages and of the page
audit. Built once per corpus, it serves every judge and every log of a report: the pages' minimizer table
(:meth:`PageIndex.shares` says what minimizers are), the minimizers two pages share (:meth:`PageIndex.excerpts`:
a text cut from one page is judged against the others through those alone) and each boilerplate rule's mask are
computed on first use and kept.

The boilerplate rule and its limits: :mod:`rag_metrics.judging.boilerplate`; the minimizers and hashes:
:mod:`rag_metrics.judging.minimizers`; the lookup and check behind :meth:`PageIndex.shares`:
:mod:`rag_metrics.judging.fragments`.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import Concat, codes_of, gram_hashes, normalize
from rag_metrics.judging.boilerplate import DEFAULT_BOILERPLATE, Boilerplate, find_boilerplate
from rag_metrics.judging.fragments import excerpt_starts, shared_pairs
from rag_metrics.judging.minimizers import (LOW32, concat_ranges, fragment_plan, key32, minimizers_of, owners,
                                            same_codes)

__all__ = ["PageIndex"]


class PageIndex:
    """A corpus's pages (a :class:`~rag_metrics.io.corpus.Corpus` or a table doc_id, page, text), normalized.

    ``keys[i]`` is page row ``i`` as ``(doc_id, page)``; ``raw`` maps keys to the page text as given;
    ``n_pages[doc]`` is the document's last page. The minimizer table, boilerplate masks and hashes are computed
    on first use and kept, so one index serves every judge and every log of a report.
    """

    def __init__(self, corpus):
        pages = getattr(corpus, "pages", corpus)
        self.keys = [(d, int(p)) for d, p in zip(pages["doc_id"], pages["page"])]
        texts = [t if isinstance(t, str) else "" for t in pages["text"]]
        self.raw = dict(zip(self.keys, texts))
        self.row = {k: i for i, k in enumerate(self.keys)}
        self._setup([normalize(t) for t in texts])

    def _setup(self, norm: list) -> None:
        """Everything but the keys and raw texts, from the normalized texts."""
        self.norm = norm
        codes, offsets = codes_of(self.norm)
        self.docs: dict[str, list[int]] = {}
        for i, (d, p) in enumerate(self.keys):
            self.docs.setdefault(d, []).append(i)
        for d in self.docs:
            self.docs[d].sort(key=lambda i: self.keys[i][1])
        self.n_pages = {d: max(self.keys[i][1] for i in rows) for d, rows in self.docs.items()}
        self.doc_of_row = np.array([d for d, _ in self.keys], dtype=object)
        self.doc_code = {d: i for i, d in enumerate(self.docs)}
        self.code_of_row = np.array([self.doc_code[d] for d, _ in self.keys], dtype=np.int64)
        self.codes, self.offsets = codes, offsets
        self._concat: Concat | None = None
        self._folded: Concat | None = None
        self._sorted: dict = {}
        self._tables: dict = {}
        self._cross_minimizers: dict = {}
        self._bp: dict = {}
        self._grams: dict = {}
        self._row_lookup = None

    def rows_of(self, codes, pages) -> np.ndarray:
        """The page row of each (document code, page) pair (``doc_code``), -1 where the index has no such page."""
        codes = np.asarray(codes, dtype=np.int64)
        pages = np.asarray(pages, dtype=np.int64)
        if self._row_lookup is None:
            page_of_row = np.array([p for _, p in self.keys], dtype=np.int64)
            low = int(page_of_row.min(initial=0))
            width = int(page_of_row.max(initial=0)) - low + 1
            key = self.code_of_row * width + (page_of_row - low)
            order = np.argsort(key, kind="stable")
            self._row_lookup = (key[order], order, low, width)
        key, order, low, width = self._row_lookup
        out = np.full(codes.shape[0], -1, dtype=np.int64)
        ok = (codes >= 0) & (pages >= low) & (pages < low + width)
        want = codes[ok] * width + (pages[ok] - low)
        slot = np.minimum(np.searchsorted(key, want), max(key.shape[0] - 1, 0))
        match = key[slot] == want if key.shape[0] else np.zeros(want.shape[0], dtype=bool)
        out[np.flatnonzero(ok)[match]] = order[slot[match]]
        return out

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
            self._concat = Concat.from_codes(self.codes, self.offsets)
        return self._concat

    @property
    def folded(self) -> Concat:
        if self._folded is None:
            self._folded = Concat.from_codes(self.codes, self.offsets, folded=True)
        return self._folded

    @staticmethod
    def _starts_in(offsets: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions of every ``n``-character fragment of the texts of ``offsets``, and the text of each."""
        rows = np.arange(offsets.shape[0] - 1, dtype=np.int64)
        starts, ends = offsets[:-1], np.maximum(offsets[1:] - n + 1, offsets[:-1])
        return concat_ranges(starts, ends), np.repeat(rows, ends - starts)

    def row_starts(self, rows, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Global positions of every ``n``-character fragment of the given page rows, and the row of each."""
        off = self.offsets
        rows = np.asarray(rows, dtype=np.int64)
        starts, ends = off[rows], np.maximum(off[rows + 1] - n + 1, off[rows])
        pos = concat_ranges(starts, ends)
        return pos, np.repeat(rows, ends - starts)

    def table(self, n: int) -> np.ndarray:
        """The pages' minimizers for ``n``-fragments (:meth:`shares`), sorted: ``key << 32 | position`` with the key
        32 bits from the minimizer's hash and its document (:func:`~rag_metrics.judging.minimizers.key32`), so that one
        search finds a key's positions in a range of characters."""
        if n not in self._tables:
            if self.codes.shape[0] >= 1 << 32:
                raise InputError("the pages hold 2**32 characters or more: too many for one page index.")
            m, w = fragment_plan(n)
            pos, h = minimizers_of(self.codes, self.offsets, m, w)
            row = owners(self.offsets, pos)
            self._tables[n] = np.sort((key32(self.code_of_row[row], h) << np.uint64(32)) | pos.astype(np.uint64))
        return self._tables[n]

    def cross_minimizers(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(positions, hashes)``, by position, of the pages' minimizers (:meth:`table`) whose key a minimizer on
        another page row has too: the only places where a page can share an ``n``-fragment with another page
        (:meth:`excerpts`). A key shared by chance (two documents, a hash collision) only adds minimizers."""
        if n not in self._cross_minimizers:
            table = self.table(n)
            if not table.shape[0]:
                self._cross_minimizers[n] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32))
                return self._cross_minimizers[n]
            key = table >> np.uint64(32)
            first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            size = np.diff(np.r_[first, key.shape[0]])
            many = np.flatnonzero(size > 1)  # a key held once is on one row
            entries = concat_ranges(first[many], first[many] + size[many])
            pos = (table[entries] & LOW32).astype(np.int64)
            row = np.searchsorted(self.offsets, pos, side="right") - 1
            starts = np.zeros(many.shape[0], dtype=np.int64)
            np.cumsum(size[many][:-1], out=starts[1:])
            if many.shape[0]:
                spread = np.minimum.reduceat(row, starts) != np.maximum.reduceat(row, starts)
                keep = np.repeat(spread, size[many])
            else:
                keep = np.zeros(0, dtype=bool)
            pos, row, key = pos[keep], row[keep], key[entries[keep]]
            order = np.argsort(pos, kind="stable")
            pos, row, key = pos[order], row[order], key[order]
            mix = (self.code_of_row[row].astype(np.uint64) * np.uint64(0x9E3779B1)) & LOW32
            # the hash back from the key (key32)
            self._cross_minimizers[n] = (pos, ((key ^ mix) & LOW32).astype(np.uint32))
        return self._cross_minimizers[n]

    def excerpts(self, texts, pair_text, pair_row, n: int):
        """Texts that are excerpts of one page, and the only minimizers through which they can share an ``n``-fragment
        with another page. ``texts`` are ``(codes, offsets)`` of normalized texts
        (:func:`rag_metrics.core.text.normalize_codes`); the pairs ``(texts[pair_text[i]], page row pair_row[i])`` are
        those to judge.

        Returns ``(source, given)``: ``source[i]`` is the page row the pair's text was found to be an excerpt of, in
        the pair's document (-1: not found), and ``given = (text, offset, hash)`` lists, for each text found, the
        minimizers :meth:`shares` needs to judge its pairs with *other* rows (``shares(..., given=given)``).

        Why they are enough: if a text equals ``X[a:a + L]`` for a page ``X``, a fragment it shares with another page
        ``Y`` occurs on both ``X`` and ``Y``. Such a fragment holds a window of ``w`` consecutive ``m``-fragments
        (:func:`~rag_metrics.judging.minimizers.fragment_plan`), the same on both pages, so both keep the same minimizer
        of it: a minimizer of ``X`` between ``a`` and ``a + L - m`` whose key a minimizer of another row has too
        (:meth:`cross_minimizers`). Those, moved to the text's offsets, are looked up instead of all the text's own
        minimizers (about 2 in 11 of its characters). The excerpt is found from one minimizer of the text's opening
        characters that occurs once in the table, and the whole text is then compared with the page on the code points.
        A text not found so (cut across pages, changed, opening with a repeated fragment, or paired with pages of two
        documents) keeps ``source`` -1."""
        pair_text = np.asarray(pair_text, dtype=np.int64)
        pair_row = np.asarray(pair_row, dtype=np.int64)
        source = np.full(pair_text.shape[0], -1, dtype=np.int64)
        none = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32))
        table = self.table(n)
        if not pair_text.shape[0] or not table.shape[0]:
            return source, none
        codes, t_off = texts
        n_docs = max(len(self.docs), 1)
        combos, combo_of_pair = np.unique(pair_text * n_docs + self.code_of_row[pair_row], return_inverse=True)
        c_text, c_doc = combos // n_docs, combos % n_docs
        single = np.ones(combos.shape[0], dtype=bool)  # texts paired with one document only
        single[1:] &= c_text[1:] != c_text[:-1]
        single[:-1] &= c_text[:-1] != c_text[1:]
        start, length = t_off[c_text], t_off[c_text + 1] - t_off[c_text]
        combo, begin, row = excerpt_starts(self, codes, table, c_doc, single, start, length, n)
        same = same_codes(codes, self.codes, start[combo], begin, length[combo])
        combo, begin, row = combo[same], begin[same], row[same]
        if not combo.shape[0]:
            return source, none
        located = np.full(combos.shape[0], -1, dtype=np.int64)
        located[combo] = row
        source[:] = located[combo_of_pair]
        # the page's cross minimizers inside each excerpt, at the text's offsets
        cross_pos, cross_hash = self.cross_minimizers(n)
        lo = np.searchsorted(cross_pos, begin, side="left")
        hi = np.searchsorted(cross_pos, begin + length[combo] - fragment_plan(n)[0], side="right")
        picked = concat_ranges(lo, hi)
        owner = np.repeat(np.arange(combo.shape[0]), np.maximum(hi - lo, 0))
        given = (c_text[combo][owner], cross_pos[picked] - begin[owner], cross_hash[picked])
        return source, given

    def boilerplate_starts(self, n: int, rule: Boilerplate | None) -> np.ndarray:
        """Global positions, ascending, where an ``n``-fragment that is boilerplate of its document starts (every
        document's boilerplate, found once per ``(n, rule)``)."""
        if rule is None:
            return np.zeros(0, dtype=np.int64)
        if (n, rule) not in self._bp:
            self._bp[n, rule] = find_boilerplate(self, n, rule)
        return self._bp[n, rule]

    def boilerplate_mask(self, n: int, rule: Boilerplate | None) -> np.ndarray:
        """Boolean per global position: the ``n``-fragment starting there is boilerplate of its document."""
        mask = np.zeros(self.codes.shape[0], dtype=bool)
        mask[self.boilerplate_starts(n, rule)] = True
        return mask

    def body(self, positions, n: int, rule: Boilerplate | None) -> np.ndarray:
        """For page fragments of ``n`` characters starting at global ``positions``: do they hold no *furniture*
        character (no character inside a boilerplate fragment, i.e. no boilerplate fragment starts within
        ``n - 1`` characters either side)?"""
        positions = np.asarray(positions, dtype=np.int64)
        starts = self.boilerplate_starts(n, rule)
        if not starts.shape[0]:
            return np.ones(positions.shape[0], dtype=bool)
        return np.searchsorted(starts, positions + n, side="left") == np.searchsorted(starts, positions - n + 1,
                                                                                      side="left")

    # -- the core query ----------------------------------------------------------------------------------------
    def shares(self, texts, pair_text, pair_row, n: int, rule: Boilerplate | None = DEFAULT_BOILERPLATE, *,
               kept: bool = False, given=None):
        """For each pair ``(texts[pair_text[i]], page row pair_row[i])``: do they share an ``n``-character fragment
        that is not boilerplate of the page's document? ``texts`` are normalized already: a list of strings, or
        ``(codes, offsets)`` as :func:`rag_metrics.core.text.normalize_codes` returns them. ``kept=True`` returns two
        arrays: this answer, and the answer with boilerplate kept (``rule=None``) from the same pass -- a fragment
        shared in full is found before the furniture test, so both come from the same candidates.

        Exact, without comparing every fragment (minimizers, as in winnowing): with ``m + w - 1 = n``
        (:func:`~rag_metrics.judging.minimizers.fragment_plan`), each text and each page keeps only its *minimizers* --
        the ``m``-fragments whose hash (digits folded) is the smallest of some window of ``w`` consecutive ones, about
        ``2 / (w + 1)`` of its positions. A shared ``n``-fragment holds one such window, identical on both sides, so
        both sides keep the same minimizer at the same offset in it: looking the texts' minimizers up in the pages'
        sorted table (one lookup of all sorted queries at once) finds every shared fragment. Each candidate is then
        checked on the code points over the ``n + w - 1`` characters around it: a run of ``n`` equal characters whose
        page fragment holds no boilerplate character confirms the pair. Hash collisions cost a check, never a false
        match.

        ``given = (text, offset, hash)`` replaces the texts' minimizers by these (:meth:`excerpts`: for texts that are
        excerpts of one page, the only minimizers through which they can share a fragment with another page).

        The steps: :func:`pair_texts` (the texts' code points), :func:`text_minimizers`, :meth:`_lookup_minimizers`
        (where each minimizer's key lies in the table), :meth:`_candidates` (the hits on paired pages) and
        :meth:`_confirm_rounds`.
        """
        pair_text = np.asarray(pair_text, dtype=np.int64)
        pair_row = np.asarray(pair_row, dtype=np.int64)
        if kept and rule is None:
            same = self.shares(texts, pair_text, pair_row, n, None)
            return same, same.copy()
        shared, shared_kept = shared_pairs(self, texts, pair_text, pair_row, n, rule, given)
        return (shared, shared_kept) if kept else shared

    def doc_boilerplate_starts(self, doc, n: int, rule: Boilerplate | None) -> np.ndarray:
        """Global positions, ascending, where an ``n``-fragment that is boilerplate of document ``doc`` starts: the
        document's part of :meth:`boilerplate_starts` (the rule looks at one document's pages only), found from that
        document's pages alone and kept -- a drill-down that shows a few pages needs no pass over the corpus."""
        if rule is None:
            return np.zeros(0, dtype=np.int64)
        if (n, rule) in self._bp:  # the whole corpus is done already
            starts = self._bp[n, rule]
            rows = np.asarray(self.docs[doc], dtype=np.int64)
            return starts[np.isin(np.searchsorted(self.offsets, starts, side="right") - 1, rows)]
        if (doc, n, rule) not in self._bp:
            rows = self.docs[doc]
            own = PageIndex.__new__(PageIndex)  # the document's pages alone, already normalized
            own.keys = [self.keys[r] for r in rows]
            own.raw = {k: self.raw[k] for k in own.keys}
            own.row = {k: i for i, k in enumerate(own.keys)}
            own._setup([self.norm[r] for r in rows])
            local = own.boilerplate_starts(n, rule)
            row = np.searchsorted(own.offsets, local, side="right") - 1
            self._bp[doc, n, rule] = np.sort(local - own.offsets[row] + self.offsets[np.asarray(rows)[row]])
        return self._bp[doc, n, rule]

    def shared_spans(self, text: str, rows, n: int, rule: Boilerplate | None = DEFAULT_BOILERPLATE):
        """Spans of the normalized ``text`` covered by ``n``-fragments found on the page rows, as
        ``(start, end, boilerplate)`` with adjacent fragments of one kind merged (for showing what a judge saw).
        Only the rows' pages and their documents' boilerplate are looked at (:meth:`doc_boilerplate_starts`)."""
        grams = gram_hashes(text, n)
        rows = [r for r in rows if len(self.norm[r]) >= n]
        if not grams.shape[0] or not rows:
            return []
        pos, _ = self.row_starts(rows, n)
        off = self.offsets
        local_off = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([off[r + 1] - off[r] for r in rows], out=local_off[1:])
        codes = np.concatenate([self.codes[off[r]:off[r + 1]] for r in rows])
        local_pos, _ = PageIndex._starts_in(local_off, n)
        h = Concat.from_codes(codes, local_off).hashes(local_pos, n)  # the rows' fragments, in the order of pos
        starts = np.unique(np.concatenate([self.doc_boilerplate_starts(d, n, rule)
                                           for d in dict.fromkeys(self.keys[r][0] for r in rows)]))
        clean = np.searchsorted(starts, pos + n, side="left") == np.searchsorted(starts, pos - n + 1, side="left")
        plain, furniture = np.unique(h[clean]), np.unique(h[~clean])
        in_plain, in_furniture = np.isin(grams, plain), np.isin(grams, furniture)
        kinds = []
        for i in np.flatnonzero(in_plain | in_furniture):
            frag = text[i:i + n]
            if not any(frag in self.norm[r] for r in rows):
                continue  # a hash collision
            kinds.append((int(i), bool(in_furniture[i]) and not in_plain[i]))
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
