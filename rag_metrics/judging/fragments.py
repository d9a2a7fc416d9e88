"""Do texts and pages share an ``n``-character fragment that is not boilerplate? The lookup and the check behind
:meth:`~rag_metrics.judging.page_index.PageIndex.shares` and :meth:`~rag_metrics.judging.page_index.PageIndex.excerpts`.

:func:`shared_pairs` answers for many ``(text, page row)`` pairs at once: the texts' minimizers
(:mod:`rag_metrics.judging.minimizers`) are looked up in the pages' sorted table (:func:`_lookup_minimizers`), the hits
on paired pages kept (:func:`_candidates`) and each checked on the code points, boilerplate left out
(:func:`_confirm_rounds`, :func:`_confirm`). :func:`excerpt_starts` finds where a text cut from one page starts on it.
How and why it is exact: :meth:`~rag_metrics.judging.page_index.PageIndex.shares`.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.judging import minimizers  # minimizers.HITS read when used (tests shrink it)
from rag_metrics.judging.minimizers import (LOW32, concat_ranges, fragment_plan, key32, minimizers_of, owners,
                                            pair_texts, text_minimizers)

__all__ = ["shared_pairs", "excerpt_starts"]


def shared_pairs(index, texts, pair_text, pair_row, n: int, rule, given) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`~rag_metrics.judging.page_index.PageIndex.shares` for every pair, as two arrays: boilerplate left out by
    ``rule``, and boilerplate kept."""
    nothing = np.zeros(pair_text.shape[0], dtype=bool)
    if not pair_text.shape[0]:
        return nothing, nothing.copy()
    m, w = fragment_plan(n)
    n_used, local_of, codes, item_off = pair_texts(texts, pair_text)
    q_pos, q_hash, q_text = text_minimizers(codes, item_off, local_of, m, w, given)
    pair_local = local_of[pair_text]
    query, left, right = _lookup_minimizers(index, pair_local, pair_row, n_used, q_hash, q_text, n)
    hit = np.flatnonzero(right > left)
    if not hit.shape[0]:
        return nothing, nothing.copy()
    n_rows = len(index.keys)
    pair_keys, key_of_pair = np.unique(pair_local * n_rows + pair_row, return_inverse=True)
    cand_key, cand_item, cand_page, cand_text = _candidates(index, pair_keys, query[hit], left[hit], right[hit],
                                                            q_pos, q_text, n)
    if not cand_key.shape[0]:
        return nothing, nothing.copy()
    done, done_kept = _confirm_rounds(index, cand_key, cand_item, cand_page, item_off[cand_text],
                                      item_off[cand_text + 1], pair_keys % n_rows, codes, n, w, rule)
    return done[key_of_pair], done_kept[key_of_pair]

def _lookup_minimizers(index, pair_local, pair_row, n_used: int, q_hash, q_text, n: int):
    """``(query, left, right)``: for each (text minimizer, document the text is paired with) -- ``query`` the
    minimizer, in the order of the sorted keys -- the run ``table[left:right]`` of the pages' table
    (:meth:`~rag_metrics.judging.page_index.PageIndex.table`) with its key, between the first and the last character of
    the text's paired pages in that document (the table is ordered by key, then position)."""
    n_docs = max(len(index.docs), 1)
    off = index.offsets
    text_doc = pair_local * n_docs + index.code_of_row[pair_row]
    combos, combo_of_pair = np.unique(text_doc, return_inverse=True)
    span_lo = np.full(combos.shape[0], np.iinfo(np.int64).max, dtype=np.int64)
    span_hi = np.zeros(combos.shape[0], dtype=np.int64)
    np.minimum.at(span_lo, combo_of_pair, off[pair_row])
    np.maximum.at(span_hi, combo_of_pair, off[pair_row + 1])
    combo_text, combo_doc = combos // n_docs, combos % n_docs
    first = np.searchsorted(combo_text, np.arange(n_used))
    if combos.shape[0] == n_used:  # one document per text (the usual case): one entry per minimizer
        query, combo = np.arange(q_text.shape[0]), first[q_text]
    else:
        per_query = np.bincount(combo_text, minlength=n_used)[q_text]
        query = np.repeat(np.arange(q_text.shape[0]), per_query)
        combo = concat_ranges(first[q_text], first[q_text] + per_query)
    # sorted by key (32 bits from the document and the hash) with the entry's index packed below it
    packed = np.sort((key32(combo_doc[combo], q_hash[query]) << np.uint64(32))
                     | np.arange(query.shape[0], dtype=np.uint64))
    entry = (packed & LOW32).astype(np.int64)
    key = packed & ~LOW32
    spans = combo[entry]
    table = index.table(n)
    left = np.searchsorted(table, key | span_lo[spans].astype(np.uint64), side="left")
    end = key | span_hi[spans].astype(np.uint64)
    some = np.flatnonzero(table[np.minimum(left, max(table.shape[0] - 1, 0))] < end) if table.shape[0] else left[:0]
    right = left.copy()
    right[some] = np.searchsorted(table, end[some], side="left")
    return query[entry], left, right

def _candidates(index, pair_keys, query, left, right, q_pos, q_text, n: int):
    """Every table entry ``table[left:right]`` a minimizer ``query`` hits that lies on a page paired with the
    minimizer's text (``pair_keys``: sorted ``text * rows + row``), in slices of about :data:`HITS` entries
    (memory stays bounded on texts that repeat): ``(pair key slot, text position, page position, text)``."""
    table = index.table(n)
    off = index.offsets
    n_rows = len(index.keys)
    counts = right - left
    ends = np.cumsum(counts)
    parts = []
    begin = 0
    while begin < query.shape[0]:
        reach = (ends[begin - 1] if begin else 0) + minimizers.HITS
        stop = max(int(np.searchsorted(ends, reach, side="right")), begin + 1)
        page_pos = (table[concat_ranges(left[begin:stop], right[begin:stop])] & LOW32).astype(np.int64)
        minimizer = np.repeat(query[begin:stop], counts[begin:stop])
        cand_key = q_text[minimizer] * n_rows + (np.searchsorted(off, page_pos, side="right") - 1)
        slot = np.minimum(np.searchsorted(pair_keys, cand_key), pair_keys.shape[0] - 1)
        keep = pair_keys[slot] == cand_key
        parts.append((slot[keep], q_pos[minimizer[keep]], page_pos[keep], q_text[minimizer[keep]]))
        begin = stop
    return tuple(np.concatenate(x) for x in zip(*parts))

def _confirm_rounds(index, cand_key, cand_item, cand_page, item_lo, item_hi, key_rows, codes, n: int, w: int,
                    rule) -> tuple[np.ndarray, np.ndarray]:
    """Per pair key (``key_rows``: its page row): is a candidate confirmed (:meth:`_confirm`), with boilerplate
    left out and with it kept. Round 1: the first candidate of each (text, row); round 2: every candidate of
    those still unconfirmed. With boilerplate kept a pair is shared when any candidate is: every one the rule
    confirms, and those of round 2 are all candidates of the pairs round 1 left unconfirmed."""
    done = np.zeros(key_rows.shape[0], dtype=bool)
    done_kept = np.zeros(key_rows.shape[0], dtype=bool)

    def confirm(sel):
        clean, shared = _confirm(index, cand_item[sel], cand_page[sel], key_rows[cand_key[sel]], item_lo[sel],
                                 item_hi[sel], n, w, codes, rule)
        done[cand_key[sel][clean]] = True
        done_kept[cand_key[sel][shared]] = True

    _, first_candidate = np.unique(cand_key, return_index=True)
    confirm(first_candidate)
    rest = np.flatnonzero(~done[cand_key])
    if rest.shape[0]:
        confirm(rest)
    return done, done_kept

def _confirm(index, ci, cj, rows, item_lo, item_hi, n, w, item_codes, rule) -> tuple[np.ndarray, np.ndarray]:
    """Candidates (item position, page position) of equal ``m``-fragment hashes (``m = n - w + 1``) that lie in a
    run of ``n`` equal characters whose page fragment holds no boilerplate character.

    The run is grown character by character to the left and to the right of the fragment (at most ``w - 1``
    each way), every step on the candidates still growing: a chance collision of a common fragment stops after
    a character or two. Then the fragment itself is compared, and a start of the run is sought whose page
    fragment has no furniture. Returns that, and whether the run is there at all (boilerplate kept)."""
    m = n - w + 1
    codes = index.codes
    off = index.offsets
    page_lo, page_hi = off[rows], off[rows + 1]
    reach = []
    for side in (-1, 1):
        grown = np.zeros(ci.shape[0], dtype=np.int64)
        active = np.arange(ci.shape[0])
        a0, b0 = (ci - 1, cj - 1) if side < 0 else (ci + m, cj + m)
        for k in range(w - 1):
            a, b = a0[active] + side * k, b0[active] + side * k
            inside = (a >= item_lo[active]) & (a < item_hi[active]) & (b >= page_lo[active]) & \
                (b < page_hi[active])
            ok = inside & (item_codes[np.clip(a, 0, item_codes.shape[0] - 1)]
                           == codes[np.clip(b, 0, codes.shape[0] - 1)])
            active = active[ok]
            if not active.shape[0]:
                break
            grown[active] += 1
        reach.append(grown)
    left, right = reach
    fine = np.flatnonzero(left + right >= w - 1)
    if not fine.shape[0]:
        return np.zeros(ci.shape[0], dtype=bool), np.zeros(ci.shape[0], dtype=bool)
    steps = np.arange(m)
    same = (item_codes[ci[fine, None] + steps] == codes[cj[fine, None] + steps]).all(axis=1)
    fine = fine[same]
    # a start of the run (at most left characters before the fragment, and late enough to cover it) whose n
    # page characters hold no furniture
    shift = np.arange(w)
    b = cj[fine, None] - shift  # start b = cj - u, u in 0..w-1
    usable = (shift <= left[fine, None]) & (w - 1 - shift <= right[fine, None])
    clean = usable & index.body(b.ravel(), n, rule).reshape(b.shape)
    out = np.zeros(ci.shape[0], dtype=bool)
    out[fine[clean.any(axis=1)]] = True
    shared = np.zeros(ci.shape[0], dtype=bool)
    shared[fine[usable.any(axis=1)]] = True
    return out, shared

def excerpt_starts(index, codes, table, c_doc, single, start, length, n: int):
    """Where each (text, document) combination would start on a page of its document: ``(combo, begin, row)``
    for the combinations whose opening characters hold a minimizer with a single entry in the table, the text
    paired with one document only and fitting inside the page from there (the characters are not compared yet)."""
    off = index.offsets
    m, w = fragment_plan(n)
    empty = np.zeros(0, dtype=np.int64)
    # the opening characters of each text, their minimizers, each looked up by key alone
    head = np.where(single & (length >= n), np.minimum(length, 2 * n), 0)
    h_off = np.zeros(start.shape[0] + 1, dtype=np.int64)
    np.cumsum(head, out=h_off[1:])
    q_pos, q_hash = minimizers_of(codes[concat_ranges(start, start + head)], h_off, m, w)
    if not q_pos.shape[0]:
        return empty, empty, empty
    q_combo = owners(h_off, q_pos)
    key = key32(c_doc[q_combo], q_hash) << np.uint64(32)
    order = np.argsort(key)  # sorted queries walk the table once
    left, right = np.empty_like(order), np.empty_like(order)
    left[order] = np.searchsorted(table, key[order], side="left")
    right[order] = np.searchsorted(table, key[order] | LOW32, side="right")
    once = np.flatnonzero(right - left == 1)  # a key with a single entry in the whole table
    chosen = once[np.unique(q_combo[once], return_index=True)[1]]  # each text's first such
    combo = q_combo[chosen]
    page_pos = (table[left[chosen]] & LOW32).astype(np.int64)
    begin = page_pos - (q_pos[chosen] - h_off[combo])  # where the text would start on the page
    row = np.searchsorted(off, page_pos, side="right") - 1
    fits = (index.code_of_row[row] == c_doc[combo]) & (begin >= off[row]) & (begin + length[combo] <= off[row + 1])
    return combo[fits], begin[fits], row[fits]
