"""Hashes and minimizers of ``n``-character fragments over texts laid end to end: the array work under the page index.

Texts are code points in one array (``codes``) with ``offsets`` bounding each text
(:func:`rag_metrics.core.text.codes_of`). :func:`minimizers_of` keeps, per text, the ``m``-fragments whose hash is the
smallest of some window of ``w`` consecutive ones (:func:`fragment_plan` chooses ``m`` and ``w`` for a fragment length
``n``): the same content keeps the same minimizers wherever it occurs, so two texts that share an ``n``-fragment share a
minimizer. :func:`block_hashes` hashes every fragment block by block (32 bits), :func:`direct_hashes` a few fragments at
given positions (64 bits), :func:`key32` mixes a hash with its document, :func:`pair_texts` and :func:`text_minimizers`
prepare the texts of ``(text, page)`` pairs (:meth:`~rag_metrics.judging.page_index.PageIndex.shares`), and
:func:`concat_ranges`, :func:`owners` and :func:`same_codes` are the index arithmetic they share. No Python loop runs
per character or per fragment.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.core.text import codes_of, fold_digits, hash_powers, text_blocks

__all__ = ["BLOCK", "HITS", "LOW32", "same_codes", "concat_ranges", "fragment_plan", "owners", "block_hashes",
           "minimizers_of", "key32", "direct_hashes", "pair_texts", "text_minimizers"]

BLOCK = 1 << 20
"""Characters hashed at once (whole texts; a longer text is a block alone)."""
HITS = 1 << 22
"""Lookup hits expanded at once (bounded memory when texts and pages repeat a fragment many times)."""


def same_codes(codes: np.ndarray, page_codes: np.ndarray, start, begin, length) -> np.ndarray:
    """Whether ``codes[start[i]:start[i] + length[i]]`` equals ``page_codes[begin[i]:...]`` for each ``i``, compared
    slice by slice (no copies of the texts)."""
    spans = zip(np.asarray(start).tolist(), np.asarray(begin).tolist(), np.asarray(length).tolist())
    if codes.dtype == page_codes.dtype:
        return np.fromiter((codes[s:s + k].tobytes() == page_codes[b:b + k].tobytes() for s, b, k in spans),
                           dtype=bool, count=len(begin))
    return np.fromiter((np.array_equal(codes[s:s + k], page_codes[b:b + k]) for s, b, k in spans),
                       dtype=bool, count=len(begin))


def concat_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(starts[i], ends[i])`` for every i (an empty range where ``ends[i] <= starts[i]``),
    without a Python loop."""
    lengths = np.maximum(ends - starts, 0)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    base = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return base + np.arange(total, dtype=np.int64)


def fragment_plan(n: int) -> tuple[int, int]:
    """``(m, w)`` with ``m + w - 1 = n``: an ``n``-character fragment holds exactly one window of ``w`` consecutive
    ``m``-character fragments (:meth:`~rag_metrics.judging.page_index.PageIndex.shares`). A wider window keeps fewer
    minimizers (about ``2 / (w + 1)`` of the positions) but shorter fragments, which recur by chance more often and cost
    checks; ``w`` about 5/12 of ``n`` (10 for 24) was the fastest measured on benchmarks/judging_vs_ragas.py (the
    results do not depend on it)."""
    w = max(1, (5 * n) // 12)
    return n - w + 1, w


_TOP = np.uint32(0xFFFFFFFF)


def _sliding(x: np.ndarray, w: int, op) -> np.ndarray:
    """``out[j] = op.reduce(x[j:j + w])`` for every full window (``op`` is np.minimum or np.maximum), by doubling."""
    k = x.shape[0] - w + 1
    if k <= 0:
        return x[:0]
    out, span = x, 1
    while span * 2 <= w:
        out = op(out[:-span], out[span:])
        span *= 2
    if span < w:
        out = op(out[:k], out[w - span: w - span + k])
    return out


def _minimizers(values: np.ndarray, valid: np.ndarray, w: int) -> np.ndarray:
    """Positions whose value is the smallest of some window of ``w`` consecutive positions (every position holding
    the window's smallest value, ties included), invalid positions never chosen: the same content selects the
    same relative positions wherever it occurs."""
    if w == 1:
        return np.flatnonzero(valid)
    x = np.where(valid, values, _TOP)
    low = _sliding(x, w, np.minimum)  # low[j]: the smallest value of window j
    if not low.shape[0]:
        return np.zeros(0, dtype=np.int64)
    pad = np.zeros(w - 1, dtype=x.dtype)
    high = _sliding(np.concatenate([pad, low, pad]), w, np.maximum)  # the largest window minimum over i's windows
    return np.flatnonzero(valid & (x == high))


def owners(offsets: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The text of each of the ascending global ``positions`` (``offsets[t] <= position < offsets[t + 1]``): a search
    of the few offsets in the many positions, not of each position in the offsets."""
    counts = np.diff(np.searchsorted(positions, offsets, side="left"))
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), counts)


def _tails(offsets: np.ndarray, m: int, lo: int, hi: int) -> np.ndarray:
    """Positions in ``[lo, hi)`` where an ``m``-fragment would run past the end of its text (texts wholly inside
    ``[lo, hi)``)."""
    first = int(np.searchsorted(offsets, lo, side="left"))
    last = int(np.searchsorted(offsets, hi, side="left"))
    starts, ends = offsets[first:last], offsets[first + 1:last + 1]
    return concat_ranges(np.maximum(ends - m + 1, starts), ends)


def block_hashes(codes: np.ndarray, offsets: np.ndarray, m: int, *, folded: bool = False, bounds=None):
    """Block by block (runs of whole texts: ``bounds``, by default :func:`rag_metrics.core.text.text_blocks`):
    ``(lo, h, valid)`` with ``h[i]`` the 32-bit hash of the ``m``-fragment at global position ``lo + i`` (a
    polynomial modulo 2**32 from prefix sums, ``sum(c[k] * B**k)``; digits folded if ``folded``) and ``valid[i]``
    whether it lies inside one text. Small arrays, reused while they are in cache. 32 bits are enough where any
    hash of the fragment's characters keeps the result exact -- minimizers, whose matches are checked on the code
    points, and the boilerplate's buckets, counted exactly afterwards -- and halve the memory traffic of 64."""
    total = int(offsets[-1])
    if bounds is None:
        bounds = np.r_[text_blocks(offsets, BLOCK), total]
    up, down = hash_powers(int(np.diff(bounds).max(initial=0)) + 1, bits=32)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        size = hi - lo
        if size < m:
            continue
        part = codes[lo:hi]
        values = (fold_digits(part) if folded else part).astype(np.uint32)
        values *= up[:size]
        prefix = np.empty(size + 1, dtype=np.uint32)
        prefix[0] = 0
        np.cumsum(values, out=prefix[1:])
        h = prefix[m:] - prefix[:-m]
        h *= down[:size - m + 1]
        valid = np.ones(size - m + 1, dtype=bool)
        tails = _tails(offsets, m, lo, hi) - lo
        valid[tails[tails < valid.shape[0]]] = False
        yield lo, h, valid


def minimizers_of(codes: np.ndarray, offsets: np.ndarray, m: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Every minimizer of the texts (:func:`_minimizers` over the 32-bit hashes of the ``m``-fragments,
    :func:`block_hashes`): global positions, ascending, and the 32-bit hash of each."""
    pos_parts, hash_parts = [], []
    for lo, h32, valid in block_hashes(codes, offsets, m):
        found = _minimizers(h32, valid, w)
        pos_parts.append(found + lo)
        hash_parts.append(h32[found])
    if not pos_parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32)
    return np.concatenate(pos_parts), np.concatenate(hash_parts)


LOW32 = np.uint64(0xFFFFFFFF)
"""The low 32 bits of a uint64 (a table entry: ``key << 32 | position``)."""


def key32(doc_codes: np.ndarray, h32: np.ndarray) -> np.ndarray:
    """A 32-bit key from a document code and a 32-bit fragment hash (as uint64): the hash mixed with the document.
    Two (document, hash) pairs may share a key; a lookup keeps only hits on the pages paired with the text."""
    mix = (doc_codes.astype(np.uint64) * np.uint64(0x9E3779B1)) & LOW32
    return (h32.astype(np.uint64) ^ mix) & LOW32


def direct_hashes(codes: np.ndarray, positions: np.ndarray, n: int, *, folded: bool = False,
                   step: int = 1 << 16) -> np.ndarray:
    """The hash of the ``n``-fragment at each position, summed directly (for a few positions): the fragments taken
    as rows of a ``(positions, n)`` array, ``step`` positions at a time."""
    up, _ = hash_powers(n + 1)
    out = np.zeros(positions.shape[0], dtype=np.uint64)
    windows = np.lib.stride_tricks.sliding_window_view(codes, n) if codes.shape[0] >= n else None
    for lo in range(0, positions.shape[0], step):
        rows = windows[positions[lo:lo + step]]
        out[lo:lo + step] = ((fold_digits(rows) if folded else rows).astype(np.uint64) * up[:n]).sum(axis=1,
                                                                                                      dtype=np.uint64)
    return out


def pair_texts(texts, pair_text: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The texts that take part in some pair (:meth:`~rag_metrics.judging.page_index.PageIndex.shares`; ``texts``:
    strings or ``(codes, offsets)``): ``(count, local_of, codes, offsets)`` -- ``local_of[i]`` the number of text ``i``
    among them (-1: in no pair), and their code points laid end to end in that order with ``offsets`` bounding each."""
    if isinstance(texts, tuple):
        all_codes, all_off = texts
        n_texts = all_off.shape[0] - 1
    else:
        n_texts = len(texts)
    used = np.unique(pair_text)
    local_of = np.full(n_texts, -1, dtype=np.int64)
    local_of[used] = np.arange(used.shape[0])
    if isinstance(texts, tuple):
        lengths = all_off[used + 1] - all_off[used]
        if used.shape[0] == n_texts:
            codes = all_codes
        else:
            chosen = np.zeros(n_texts, dtype=bool)
            chosen[used] = True
            codes = all_codes[np.repeat(chosen, np.diff(all_off))]
    else:
        codes, chosen_off = codes_of(texts[i] for i in used)
        lengths = np.diff(chosen_off)
    offsets = np.zeros(used.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return used.shape[0], local_of, codes, offsets


def text_minimizers(codes, offsets, local_of, m: int, w: int, given) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions, hashes, texts)`` of the paired texts' minimizers (:func:`pair_texts` gives ``codes``,
    ``offsets`` and ``local_of``): their own (:func:`minimizers_of`), or ``given = (text, offset, hash)`` (original
    text numbers; those of texts in no pair are dropped)."""
    if given is None:
        q_pos, q_hash = minimizers_of(codes, offsets, m, w)
        return q_pos, q_hash, owners(offsets, q_pos)
    g_text, g_offset, q_hash = given
    q_text = local_of[g_text]
    inside = q_text >= 0
    q_text, q_hash = q_text[inside], q_hash[inside]
    return offsets[q_text] + g_offset[inside], q_hash, q_text
